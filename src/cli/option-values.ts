import { type Command, InvalidArgumentError } from 'commander';

/** `--json`, `-h`: a dash and a letter. A negative number (`-5`) or a lone `-` is still a value. */
const OPTION_LIKE = /^--?[A-Za-z]/;

/**
 * Makes every option of `command` and its subcommands that takes a value refuse one that looks like
 * an option. Commander takes whatever follows `--user` as its value, so `keys create --user --json`
 * would make a user named `--json` and print the key as text; refused, it is a usage error (exit 2)
 * naming the option. Call it once every option is defined. Variadic options are left alone.
 */
export function refuseOptionsAsValues(command: Command): Command {
  for (const option of command.options) {
    if ((!option.required && !option.optional) || option.variadic) continue;
    const parse = option.parseArg;
    const name = option.long ?? option.short ?? option.flags;
    option.argParser(<T>(value: string, previous: T): T => {
      if (OPTION_LIKE.test(value)) throw new InvalidArgumentError(`It looks like an option, not a value: give ${name} a value before the next option.`);
      return parse ? parse(value, previous) : (value as T);
    });
  }
  for (const subcommand of command.commands) refuseOptionsAsValues(subcommand);
  return command;
}

import { Command, InvalidArgumentError, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { refuseOptionsAsValues } from '../../src/cli/option-values.js';

/** A program shaped like the keys CLI: a subcommand with required, defaulted, parsed and boolean options. */
function program(): { command: Command; errors: string[] } {
  const errors: string[] = [];
  const command = new Command('cli').exitOverride().configureOutput({ writeErr: (text) => errors.push(text), writeOut: () => {} });
  command
    .command('create')
    .exitOverride()
    .configureOutput({ writeErr: (text) => errors.push(text), writeOut: () => {} })
    .requiredOption('--user <name>', 'user')
    .option('--name <name>', 'key name', 'CLI key')
    .option('--limit <n>', 'a count', (value: string) => {
      if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
      return Number(value);
    })
    .addOption(new Option('--sort <order>', 'order').choices(['asc', 'desc']))
    .option('--tags <tags...>', 'variadic, left alone')
    .option('--json', 'boolean')
    .action(() => {});
  return { command: refuseOptionsAsValues(command), errors };
}

function parse(args: string[]): { options?: Record<string, unknown>; error?: string } {
  const { command, errors } = program();
  try {
    command.parse(args, { from: 'user' });
    return { options: command.commands[0]!.opts() };
  } catch {
    return { error: errors.join('') };
  }
}

describe('refuseOptionsAsValues', () => {
  it.each([
    { given: ['create', '--user', '--json'], want: "option '--user <name>' argument '--json' is invalid. It looks like an option" },
    { given: ['create', '--user', 'ann', '--name', '--json'], want: "option '--name <name>' argument '--json' is invalid" },
    { given: ['create', '--user', '-h'], want: "option '--user <name>' argument '-h' is invalid" },
    { given: ['create', '--user', 'ann', '--limit', '--json'], want: "option '--limit <n>' argument '--json' is invalid. It looks like an option" },
    { given: ['create', '--user', 'ann', '--sort', '--json'], want: "option '--sort <order>' argument '--json' is invalid. It looks like an option" },
  ])('refuses $given', ({ given, want }) => {
    expect(parse(given).error).toContain(want);
  });

  it.each([
    { given: ['create', '--user', 'ann', '--name', '-'], want: { user: 'ann', name: '-' } },
    { given: ['create', '--user', 'ann', '--limit', '-5'], want: { limit: -5 } },
    { given: ['create', '--user=ann', '--json'], want: { user: 'ann', json: true } },
    { given: ['create', '--user', 'ann'], want: { name: 'CLI key' } },
    { given: ['create', '--user', 'ann', '--tags', 'a', 'b'], want: { tags: ['a', 'b'] } },
  ])('takes $given as before, its own parser and choices still applied', ({ given, want }) => {
    expect(parse(given).options).toMatchObject(want);
  });

  it("still runs an option's own parser and choices", () => {
    expect(parse(['create', '--user', 'ann', '--limit', 'many']).error).toContain('must be a whole number');
    expect(parse(['create', '--user', 'ann', '--sort', 'up']).error).toContain('Allowed choices are asc, desc');
  });
});

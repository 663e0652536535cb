/**
 * Exit codes, the same for every CLI of the project (as Redocly's): 0 done and nothing wrong,
 * 1 a request failed or the run found something wrong, 2 bad usage. The contract suite adds 3:
 * the tool itself failed (a bug, or a spec it could not handle), told apart from a violation. Commander's `--help` and
 * `--version` exit 0; any other parse error of commander's is bad usage.
 */
import { CommanderError } from 'commander';

export const ExitCode = { ok: 0, failed: 1, usage: 2, toolFailed: 3 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Bad usage: an argument, option or setting the command cannot work with. Exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The command was used correctly but could not do it (an unknown user, a revoked key). Exit code 1. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

/**
 * The exit code for an error a CLI did not handle, after writing it to stderr (or `writeErr`) as
 * `<name>: <message>`, with its stack when it is not one of the expected kinds above. Commander
 * has already printed its own message.
 */
export function exitCodeFor(name: string, error: unknown, writeErr: (text: string) => void = (text) => process.stderr.write(text)): ExitCode {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  if (error instanceof UsageError || error instanceof CommandFailed) {
    writeErr(`${name}: ${error.message}\n`);
    return error instanceof UsageError ? ExitCode.usage : ExitCode.failed;
  }
  writeErr(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return ExitCode.failed;
}

/**
 * Runs a CLI's main function and sets `process.exitCode` from what it returns (default 0; a
 * wrapper such as `npm run mock` may pass on its child's code) or throws. Give the commander program `.exitOverride()` so its parse errors arrive here rather
 * than ending the process with commander's own exit code.
 *
 * @example
 * await runCli('soak', async () => {
 *   const options = program.parse().opts<Options>();
 *   return (await runSoak(options)).ok ? ExitCode.ok : ExitCode.failed;
 * });
 */
export async function runCli(name: string, main: () => number | void | Promise<number | void>): Promise<void> {
  try {
    process.exitCode = (await main()) ?? ExitCode.ok;
  } catch (error) {
    process.exitCode = exitCodeFor(name, error);
  }
}

/**
 * Parses the arguments of a CLI whose work runs at module level (the bench scripts): on bad usage
 * it exits at once, with the code `runCli` would set (2; 0 for `--help`).
 */
export function parseOrExit<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    process.exit(exitCodeFor(name, error));
  }
}

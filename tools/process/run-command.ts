import { launch, type Exit, type LaunchOptions } from './launch.js';

export interface CommandResult extends Exit {
  stdout: string;
  stderr: string;
}

/**
 * Runs `argv` to its end and returns its exit and everything it wrote; never throws on a
 * non-zero exit. After `timeoutMs` (default 60 s) its group is killed and `signal` says so.
 *
 * @example
 * const { code, stderr } = await runCommand(tsxCommand('src/cli/keys.ts', ['rotate']));
 */
export async function runCommand(argv: readonly string[], options: Omit<LaunchOptions, 'output'> & { timeoutMs?: number } = {}): Promise<CommandResult> {
  const { timeoutMs = 60_000, ...launchOptions } = options;
  const child = launch(argv, { ...launchOptions, output: 'capture' });
  const timer = setTimeout(() => void child.stop({ signal: 'SIGKILL' }), timeoutMs);
  const exit = await child.exited;
  clearTimeout(timer);
  return { ...exit, stdout: child.stdout(), stderr: child.stderr() };
}

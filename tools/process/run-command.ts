import { type Exit, type LaunchOptions, launch } from './launch.js';

export interface CommandResult extends Exit {
  stdout: string;
  stderr: string;
}

/**
 * Runs `argv` to its end with `launch` and returns its exit and everything it wrote; never throws
 * on a non-zero exit. After `timeoutMs` (default 60 s), or once `cancelSignal` aborts, its group is
 * killed and `signal` says so.
 *
 * @example
 * const { code, stderr } = await runCommand(tsxCommand('src/cli/keys.ts', ['rotate']));
 */
export async function runCommand(
  argv: readonly string[],
  options: Omit<LaunchOptions, 'output' | 'onOutput'> & { timeoutMs?: number; cancelSignal?: AbortSignal } = {},
): Promise<CommandResult> {
  const { timeoutMs = 60_000, cancelSignal, ...launchOptions } = options;
  const child = launch(argv, { ...launchOptions, output: 'capture' });
  const kill = () => void child.stop({ signal: 'SIGKILL' });
  const timer = setTimeout(kill, timeoutMs);
  cancelSignal?.addEventListener('abort', kill, { once: true });
  if (cancelSignal?.aborted) kill();
  const exit = await child.exited;
  clearTimeout(timer);
  cancelSignal?.removeEventListener('abort', kill);
  return { ...exit, stdout: child.stdout(), stderr: child.stderr() };
}

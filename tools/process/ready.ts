import { type AwaitedProcess, describeExit, withOutput } from '../../src/cli/wait-for-http.js';
import type { LaunchedProcess } from './launch.js';

// The HTTP readiness check is the product's (npm run mock waits for Prism with it); the tools use the same one.
export { type ReadinessProbe, waitForHttp } from '../../src/cli/wait-for-http.js';

/**
 * Waits until the process's output, stdout then stderr, matches `pattern` (the server's `Listening on <url>`
 * line, which it prints on stderr: its stdout carries JSON log lines only)
 * and returns the match. Fails when the process ends first or `timeoutMs` (default 30 s) passes,
 * with the end of its output in the message.
 */
export async function waitForOutput(
  launched: AwaitedProcess & Pick<LaunchedProcess, 'stdout' | 'stderr'>,
  pattern: RegExp,
  options: { timeoutMs?: number } = {},
): Promise<RegExpExecArray> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(launched.stdout()) ?? pattern.exec(launched.stderr());
    if (match) return match;
    const exit = launched.exitStatus();
    if (exit) throw new Error(withOutput(`${launched.commandLine} ended (${describeExit(exit)}) before printing ${pattern}`, launched));
    if (Date.now() > deadline) throw new Error(withOutput(`${launched.commandLine} did not print ${pattern} within ${timeoutMs} ms`, launched));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

import { describeExit, type LaunchedProcess } from './launch.js';

/**
 * Waits until the process's stdout matches `pattern` (the server's `Listening on <url>` line)
 * and returns the match. Fails when the process ends first or `timeoutMs` (default 30 s) passes,
 * with the end of its output in the message.
 */
export async function waitForOutput(launched: LaunchedProcess, pattern: RegExp, options: { timeoutMs?: number } = {}): Promise<RegExpExecArray> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(launched.stdout());
    if (match) return match;
    const exit = launched.exitStatus();
    if (exit) throw new Error(withOutput(`${launched.commandLine} ended (${describeExit(exit)}) before printing ${pattern}`, launched));
    if (Date.now() > deadline) throw new Error(withOutput(`${launched.commandLine} did not print ${pattern} within ${timeoutMs} ms`, launched));
    await sleep(10);
  }
}

/** A request that a ready process answers with `status`. */
export interface ReadinessProbe {
  url: string;
  status: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Sends `probe` every `intervalMs` (default 20) until it is answered with `probe.status`, and
 * returns how long that took in ms (the bench's startup time). Fails when the process ends first
 * or `timeoutMs` (default 60 s) passes, saying what the last attempt got.
 */
export async function waitForHttp(
  launched: LaunchedProcess,
  probe: ReadinessProbe,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = performance.now();
  let last = 'no answer yet';
  for (;;) {
    const exit = launched.exitStatus();
    if (exit)
      throw new Error(withOutput(`${launched.commandLine} ended (${describeExit(exit)}) before ${probe.url} answered ${probe.status} (${last})`, launched));
    try {
      const response = await fetch(probe.url, {
        method: probe.method ?? 'GET',
        headers: probe.headers ?? {},
        body: probe.body ?? null,
        signal: AbortSignal.timeout(2_000),
      });
      await response.arrayBuffer();
      if (response.status === probe.status) return performance.now() - started;
      last = `status ${response.status}`;
    } catch (error) {
      // Not listening yet: say why, from the socket error fetch wraps.
      last = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    }
    if (performance.now() - started > timeoutMs)
      throw new Error(withOutput(`${probe.url} did not answer ${probe.status} within ${timeoutMs} ms (${last})`, launched));
    await sleep(options.intervalMs ?? 20);
  }
}

/** The message, then the end of the process's output when there is any to show. */
function withOutput(message: string, launched: LaunchedProcess): string {
  const tail = launched.outputTail();
  return tail === '' ? message : `${message}; its last output:\n${tail}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

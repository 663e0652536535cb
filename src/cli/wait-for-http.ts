/**
 * Waiting until a process that was just started answers HTTP: `npm run mock` and `npm run
 * mock:web` wait for Prism with it, and the tools (the bench, the test harnesses) for every server
 * they start. wait-on polls too, but it cannot be told to stop when the process ends first: it polls
 * on until its timeout, holding the event loop, and it does not say what the last attempt got.
 */

/** How a process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `exit code 1` or `signal SIGKILL`, for messages. */
export function describeExit(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/** The process that should answer, as much of it as the wait needs: whether it has ended, and its last output. */
export interface AwaitedProcess {
  /** The command line, for messages. */
  readonly commandLine: string;
  /** How it ended, or undefined while it runs. */
  exitStatus(): Exit | undefined;
  /** The end of its output, for the error message; empty when it writes to a terminal. */
  outputTail(): string;
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
export async function waitForHttp(launched: AwaitedProcess, probe: ReadinessProbe, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<number> {
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
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}

/** The message, then the end of the process's output when there is any to show. */
export function withOutput(message: string, launched: AwaitedProcess): string {
  const tail = launched.outputTail();
  return tail === '' ? message : `${message}; its last output:\n${tail}`;
}

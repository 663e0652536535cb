import { spawn } from 'node:child_process';
import { projectRoot } from '../../src/contract/project.js';
import { MOCK_DEFAULTS, prismCommand, type MockOptions } from '../../src/mock/prism.js';
import { waitForApi } from '../../src/mock/ready.js';
import { freePort, startServer, type ServerProcess } from './server-process.js';

export interface MockProcess {
  url: string;
  pid: number;
  /** Everything Prism wrote so far. */
  output(): string;
  /** Stops Prism's whole process group; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts the Prism mock as `npm run mock` does (same command line, see
 * `prismCommand`) on a free port, in its own process group, and waits until it
 * answers. Always `stop()` it in an `afterAll`; if the test process dies first,
 * an exit hook kills the group.
 */
export async function startMock(options: Partial<MockOptions> = {}): Promise<MockProcess> {
  const port = await freePort();
  const { command, args } = prismCommand({ ...MOCK_DEFAULTS, ...options, port });
  const child = spawn(command, args, { cwd: projectRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn Prism');
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone already
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    // Anything Prism may have started is in the same group.
    killGroup('SIGKILL');
    process.off('exit', onExit);
  };

  const url = `http://127.0.0.1:${port}`;
  try {
    // A valid request asking Prism for its 401: the public API's /shared with a bearer token, the account API's /session with its cookie.
    const probe =
      options.api === 'account'
        ? { path: '/session', headers: { Cookie: '__Host-session=readiness-probe', Prefer: 'code=401' } }
        : { headers: { Authorization: 'Bearer readiness-probe', Prefer: 'code=401' } };
    await waitForApi(url, { stopped: exited, timeoutMs: 60_000, ...probe });
  } catch (error) {
    await stop();
    throw new Error(`Prism did not start: ${error instanceof Error ? error.message : String(error)}\n${output}`);
  }
  return { url, pid, output: () => output, stop };
}

/** True while a process with this id exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the mock and the server side by side. If either fails to start, the
 * other is stopped before the error is thrown, so a failed `beforeAll` leaves
 * no process behind.
 */
export async function startMockAndServer(serverOptions: Parameters<typeof startServer>[0] = {}): Promise<{ mock: MockProcess; server: ServerProcess }> {
  const [mock, server] = await Promise.allSettled([startMock(), startServer(serverOptions)]);
  if (mock.status === 'fulfilled' && server.status === 'fulfilled') return { mock: mock.value, server: server.value };
  await Promise.all([mock.status === 'fulfilled' ? mock.value.stop() : undefined, server.status === 'fulfilled' ? server.value.stop() : undefined]);
  throw mock.status === 'rejected' ? mock.reason : (server as PromiseRejectedResult).reason;
}

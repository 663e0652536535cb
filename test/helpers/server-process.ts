import { createServer } from 'node:net';
import { createKeyWithCli, startServer as startServerProcess, tempDatabase, type ServerProcess as RunningServer } from '../../src/soak/server-process.js';

export interface ServerProcess {
  url: string;
  port: number;
  child: RunningServer['child'];
  databasePath: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and resolves with the exit code (null when killed by a signal); removes a database it made. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Runs the keys CLI against a database and returns the created key. */
export async function createKey(databasePath: string, user: string): Promise<{ id: string; key: string }> {
  return createKeyWithCli(databasePath, user);
}

/**
 * The server as its own process (see `src/soak/server-process.ts`, which the soak
 * and robustness tests use too) on a fresh database unless one is given, mounted
 * under `BASE_PATH` when the environment says so. Always `stop()` it in an `afterAll`.
 */
export async function startServer(options: { env?: Record<string, string>; databasePath?: string } = {}): Promise<ServerProcess> {
  const scratch = options.databasePath ? undefined : tempDatabase('server-');
  const databasePath = options.databasePath ?? scratch!.path;
  // Tests hold the server to the contract on every answer, and share it across many files whose
  // refused-credential cases would otherwise use up the per-address budget (rate-limit.test.ts tests it in-process).
  const env = { RESPONSE_VALIDATION: 'strict', FAILED_AUTH_PER_ADDRESS: '1000000', FAILED_AUTH_TOTAL: '1000000', ...options.env };
  const server = await startServerProcess({ databasePath, env, timeoutMs: 30_000 });
  return {
    url: server.url,
    port: server.port,
    child: server.child,
    databasePath,
    output: () => server.stdout() + server.stderr(),
    async stop(signal = 'SIGTERM') {
      const { code } = await server.stop(signal);
      scratch?.remove();
      return code;
    },
  };
}

import { tsxCommand } from './commands.js';
import { launch, type LaunchedProcess, type OutputMode } from './launch.js';
import { waitForOutput } from './ready.js';

/** The API server running as its own process, as `npm start` runs it. */
export interface ServerProcess extends LaunchedProcess {
  /** Root URL of the API, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
}

export interface StartServerOptions {
  databasePath: string;
  /** Extra environment (LOG_LEVEL, HEADERS_TIMEOUT_MS, RATE_LIMIT_REQUESTS, ...); HOST, PORT and DATABASE_PATH are set here. */
  env?: Record<string, string>;
  /** Default `capture`; files for a server that outlives the process that reads its output (vitest's global setup). */
  output?: OutputMode;
  /** With `capture`, keep only about this many characters of each stream. */
  maxOutputChars?: number;
  /** How long to wait for the `Listening on` line (default 30 s). */
  timeoutMs?: number;
}

/**
 * Starts `src/server/main.ts` on a free loopback port (PORT=0) and resolves once it prints
 * `Listening on <url>`, which it does at any LOG_LEVEL. Logs at `info` unless `env` says otherwise.
 * If it does not start, it is stopped and the error carries its output.
 */
export async function startServer(options: StartServerOptions): Promise<ServerProcess> {
  const server = launch(tsxCommand('src/server/main.ts'), {
    env: { NODE_ENV: 'production', LOG_LEVEL: 'info', ...options.env, HOST: '127.0.0.1', PORT: '0', DATABASE_PATH: options.databasePath },
    output: options.output ?? 'capture',
    ...(options.maxOutputChars !== undefined && { maxOutputChars: options.maxOutputChars }),
  });
  try {
    const [, url = ''] = await waitForOutput(server, /^Listening on (\S+)$/m, { timeoutMs: options.timeoutMs ?? 30_000 });
    return { ...server, url, port: Number(new URL(url).port) };
  } catch (error) {
    await server.stop({ signal: 'SIGKILL' });
    throw error;
  }
}

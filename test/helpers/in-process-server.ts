/**
 * The server held in this process (`createServerProcess`, what `npm start` runs), on real sockets, for tests that
 * talk HTTP to it and read its log: no process to start under tsx (about 2 s of CPU each), no signals to send.
 * Tests whose point is the process itself (signals, exit codes, what reaches stdout and stderr) start one with
 * `startServer` (`tools/process/server.ts`).
 */
import { configurationWarnings, readServerConfig } from '../../src/config/env.js';
import { createServerProcess } from '../../src/server/service.js';

/** What `startServer` sets for a harness (tools/process/server.ts), and nothing of this process's environment. */
const HARNESS_ENV = { NODE_ENV: 'production', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', SHUTDOWN_DELAY_SECONDS: '0' };

export interface InProcessServer {
  url: string;
  port: number;
  webUrl: string;
  opsUrl: string | undefined;
  /** The JSON log lines so far, as the process writes them to stdout (`flushLogs` first for the latest). */
  stdout(): string;
  /** The greeting, as the process writes it to stderr. */
  stderr(): string;
  /** Hands every line waiting in the log's batch to `stdout()`. */
  flushLogs(): Promise<void>;
  /** Closes it as SIGTERM does once drained: in-flight requests finish, then the store closes. */
  stop(): Promise<void>;
}

/** Starts the server on `databasePath` with the harness's settings and `env` over them; resolves once it listens. */
export async function startInProcessServer(options: { databasePath: string; env?: Record<string, string> }): Promise<InProcessServer> {
  const env = { ...HARNESS_ENV, DATABASE_PATH: options.databasePath, ...options.env };
  const logged: string[] = [];
  const greeted: string[] = [];
  const server = await createServerProcess(readServerConfig(env), {
    log: { write: (text: string) => void logged.push(text), flush: (done) => done?.(), flushSync: () => undefined },
    greet: (text) => void greeted.push(text),
    warnings: configurationWarnings(env),
  });
  const { url, webUrl, opsUrl } = await server.listen();
  return {
    url,
    port: Number(new URL(url).port),
    webUrl,
    opsUrl,
    stdout: () => logged.join(''),
    stderr: () => greeted.join(''),
    flushLogs: () => new Promise((resolve) => server.flushLogs(resolve)),
    stop: () => server.close(),
  };
}

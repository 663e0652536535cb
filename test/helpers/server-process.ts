import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  databasePath: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends a signal and resolves with the exit code (null when killed by a signal). */
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
export async function createKey(databasePath: string, user: string): Promise<{ id: string; userId: string; key: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--user', user, '--json'], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_PATH: databasePath },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`keys create failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as { id: string; userId: string; key: string };
}

/**
 * Starts `src/server/main.ts` as its own process (node --import tsx, so signals
 * reach the server itself) on a free port with a fresh database unless one is
 * given, and waits until it answers. Always `stop()` it in an `afterAll`.
 */
export async function startServer(options: { env?: Record<string, string>; databasePath?: string } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const scratch = options.databasePath ? undefined : mkdtempSync(join(tmpdir(), 'server-'));
  const databasePath = options.databasePath ?? join(scratch!, 'api.sqlite');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: databasePath, LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}${options.env?.['BASE_PATH'] ?? ''}`;

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timer);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    return code;
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before answering:\n${output}`);
    try {
      const response = await fetch(`${url}/shared`);
      await response.arrayBuffer();
      if (response.status === 401) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`server did not answer within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, port, child, databasePath, output: () => output, stop };
}

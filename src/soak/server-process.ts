import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../contract/project.js';

/** A server started as its own process (`src/server/main.ts`), as `npm start` runs it. */
export interface ServerProcess {
  /** Root URL of the API, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Everything the process has written so far. */
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGTERM (or `signal`) and waits for the exit; SIGKILL after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartServerOptions {
  databasePath: string;
  /** Extra environment (HEADERS_TIMEOUT_MS, RATE_LIMIT_REQUESTS, ...). */
  env?: Record<string, string>;
  /** How long to wait for the `Listening on` line. */
  timeoutMs?: number;
  /** Keep only the last this many characters of each output stream (a long soak logs a line per request). */
  maxOutputChars?: number;
}

/**
 * Starts the server on a free loopback port (PORT=0) and resolves once it prints
 * `Listening on <url>`. It runs as `node --import tsx src/server/main.ts`, which is what the
 * `tsx` command does, but in one process, so `pid` is the server itself (its RSS,
 * its signals) rather than a wrapper.
 */
export function startServer(options: StartServerOptions): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', ...options.env, HOST: '127.0.0.1', PORT: '0', DATABASE_PATH: options.databasePath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const cap = options.maxOutputChars ?? Number.POSITIVE_INFINITY;
  const keep = (text: string) => (text.length > 2 * cap ? text.slice(-cap) : text);
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out = keep(out + chunk)));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err = keep(err + chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${options.timeoutMs ?? 20_000} ms\nstdout: ${out}\nstderr: ${err}`));
    }, options.timeoutMs ?? 20_000);
    const onData = () => {
      const url = listeningUrl(out);
      if (!url) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      const server: ServerProcess = {
        url,
        port: Number(new URL(url).port),
        pid: child.pid ?? -1,
        child,
        stdout: () => out,
        stderr: () => err,
        exited,
        async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          const result = await exited;
          clearTimeout(killer);
          return result;
        },
      };
      resolve(server);
    };
    child.stdout.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${code}, signal ${signal}) before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/** The URL from the `Listening on <url>` line the server prints at any LOG_LEVEL, once it has been written. */
function listeningUrl(stdout: string): string | undefined {
  return /^Listening on (\S+)$/m.exec(stdout)?.[1];
}

/** Makes a key with the keys CLI (`src/cli/keys.ts create --json`) against DATABASE_PATH (or `env`'s DATABASE_URL), as an operator would. */
export async function createKeyWithCli(databasePath: string, user: string, env: Record<string, string> = {}): Promise<{ id: string; key: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--user', user, '--json'], {
    cwd: projectRoot,
    env: { ...process.env, ...env, DATABASE_PATH: databasePath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`keys create exited ${code}: ${err.trim()}`);
  const created = JSON.parse(out) as { id: string; key: string };
  return { id: created.id, key: created.key };
}

/** A fresh directory for a database, removed by `remove()`. */
export function tempDatabase(prefix = 'api-'): { dir: string; path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, path: join(dir, 'api.sqlite'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resident set size of a process in KiB, from /proc (Linux); undefined elsewhere or once it has exited. */
export function readRssKiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

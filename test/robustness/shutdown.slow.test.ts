/**
 * Graceful shutdown of the real process: SIGTERM while requests are in flight
 * (their bodies still arriving, slowly). They complete with 200, new connections
 * are refused at once, the process exits 0, and the database file is whole and
 * was closed cleanly (WAL checkpointed away).
 */
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeKey } from '../../tools/process/make-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { startServer, type ServerProcess, stderrBeyondGreeting } from '../../tools/process/server.js';
import { expectHonoursContract } from '../helpers/contract.js';

interface SlowCall {
  /** Sends the rest of the body and resolves with the answer. */
  finish(): Promise<{ status: number; headers: Headers; body: string }>;
}

/** Starts a POST whose body is sent in two parts: headers and a first fragment now, the rest on `finish()`. */
function startSlowCall(server: ServerProcess, key: string, agent: Agent, path: '/' | '/shared', sort: 'asc' | 'desc'): SlowCall {
  let settle!: (answer: { status: number; headers: Headers; body: string }) => void;
  let fail!: (error: Error) => void;
  const answered = new Promise<{ status: number; headers: Headers; body: string }>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const call = request(
    `${server.url}${path}`,
    { method: 'POST', agent, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } },
    (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
        settle({ status: response.statusCode ?? 0, headers, body });
      });
    },
  );
  call.on('error', fail);
  // A call cut by the server rejects; only a test that finishes it looks at the outcome.
  answered.catch(() => undefined);
  // Chunked: the server has the headers and the start of the body, and waits for the rest.
  call.write('{"sort":');
  call.flushHeaders();
  return {
    finish() {
      call.end(`"${sort}","limit":5}`);
      return answered;
    },
  };
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function logEntries(server: ServerProcess): Array<{ level: number; msg?: string; status?: number }> {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg?: string; status?: number });
}

// Each case has its own server and database, and mostly waits, so they run side by side.
describe('graceful shutdown', { concurrent: true }, () => {
  it('finishes in-flight requests with 200, refuses new connections, exits 0 and leaves a clean database', async () => {
    const database = scratchDatabase('shutdown-');
    try {
      const { key } = await makeKey(database.path, 'ann');
      const server = await startServer({ databasePath: database.path });
      const agent = new Agent({ keepAlive: true });
      // A request answered before the signal leaves an idle keep-alive connection behind: it must not delay the exit.
      await startSlowCall(server, key, agent, '/', 'asc').finish();

      const inFlight = [
        startSlowCall(server, key, agent, '/', 'asc'),
        startSlowCall(server, key, agent, '/', 'desc'),
        startSlowCall(server, key, agent, '/shared', 'asc'),
        startSlowCall(server, key, agent, '/shared', 'desc'),
      ];
      await sleep(300);
      const signalled = performance.now();
      server.signal('SIGTERM');
      await sleep(300);

      expect(await connectionRefused(server.port), 'a new connection after SIGTERM is refused').toBe(true);
      expect(server.exitStatus(), 'still running while requests are in flight').toBeUndefined();

      const answers = await Promise.all(inFlight.map((call) => call.finish()));
      for (const [index, answer] of answers.entries()) {
        expect(answer.status).toBe(200);
        expectHonoursContract(index < 2 ? 'listOwnItems' : 'listSharedItems', answer);
      }

      const exit = await server.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      // Closing follows the last answer closely, not the keep-alive timeout (5 s).
      expect(performance.now() - signalled).toBeLessThan(3_000);
      agent.destroy();

      const log = logEntries(server);
      expect(log.map((entry) => entry.msg).filter(Boolean)).toEqual(
        expect.arrayContaining(['shutting down: no new connections, finishing in-flight requests', 'stopped']),
      );
      expect(log.filter((entry) => entry.level >= 50)).toEqual([]);
      expect(stderrBeyondGreeting(server.stderr())).toBe('');

      // Closed cleanly: the last connection checkpointed the WAL and removed it.
      const wal = `${database.path}-wal`;
      expect(!existsSync(wal) || statSync(wal).size === 0, 'no leftover -wal content').toBe(true);
      const db = new Database(database.path, { fileMustExist: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        const keyRow = db.prepare('SELECT last_used_at AS lastUsedAt FROM api_keys').get() as { lastUsedAt: string | null };
        // The write the requests made (the key's last use) was kept.
        expect(keyRow.lastUsedAt).not.toBeNull();
      } finally {
        db.close();
      }
    } finally {
      database.remove();
    }
  });

  it('cuts what is still running after SHUTDOWN_GRACE_MS, and still exits 0 with a clean database', async () => {
    const database = scratchDatabase('shutdown-grace-');
    try {
      const { key } = await makeKey(database.path, 'ann');
      const server = await startServer({ databasePath: database.path, env: { SHUTDOWN_GRACE_MS: '1000' } });
      const agent = new Agent({ keepAlive: true });
      // Never finished: its body stops after the first fragment.
      startSlowCall(server, key, agent, '/', 'asc');
      await sleep(300);
      const signalled = performance.now();
      server.signal('SIGTERM');
      const exit = await server.exited;
      const elapsed = performance.now() - signalled;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(4_000);
      agent.destroy();
      const log = logEntries(server);
      expect(log.some((entry) => entry.msg === 'requests still running after the grace period; closing their connections')).toBe(true);
      expect(log.filter((entry) => (entry.status ?? 0) >= 500)).toEqual([]);
      const db = new Database(database.path, { fileMustExist: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    } finally {
      database.remove();
    }
  });
});

/**
 * The connection cap, on the server's real listeners (held in this process) with small caps: one client address holding its
 * share of connections (idle, or dribbling its headers) cannot take the rest, other clients are
 * still served, the cap in all holds across addresses, refused connections are closed at once
 * and counted in the log, and the server accepts again once connections are released.
 * Other clients are other loopback addresses (127.0.0.2, ...), which Linux routes to 127.0.0.1.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey } from '../../tools/process/make-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type InProcessServer, startInProcessServer } from '../helpers/in-process-server.js';
import { exchange, httpRequest } from './helpers/raw-http.js';

const MAX = 6;
const PER_ADDRESS = 3;

const database = scratchDatabase('connection-cap-');
let server: InProcessServer;
let key: string;

beforeAll(async () => {
  key = (await makeKey(database.path, 'ann')).key;
  server = await startInProcessServer({ databasePath: database.path, env: { MAX_CONNECTIONS: String(MAX), MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) } });
});
afterAll(async () => {
  await server?.stop();
  database.remove();
});

/** A connection that sends a request line and then nothing, as a slow client does; resolves once connected. */
function hold(localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: server.port, host: '127.0.0.1', localAddress });
    socket.once('connect', () => {
      socket.write('GET /shared HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      resolve(socket);
    });
    socket.once('error', reject);
    socket.on('error', () => {});
  });
}

/** A full request from `localAddress`: its status, or how the connection ended without one. */
async function request(localAddress: string): Promise<number | 'closed without an answer'> {
  const result = await exchange(server.port, [httpRequest('GET', '/shared', [['Authorization', `Bearer ${key}`]])], {
    localAddress,
    untilResponses: 1,
    waitMs: 3_000,
  });
  return result.responses[0]?.status ?? 'closed without an answer';
}

describe(`the connection cap (${MAX} in all, ${PER_ADDRESS} per address)`, () => {
  it('keeps serving other clients while one holds its share, refuses past the caps at once, and accepts again after', async () => {
    const held: Socket[] = [];
    try {
      for (let index = 0; index < PER_ADDRESS; index++) held.push(await hold('127.0.0.1'));
      // The holder's next connection is closed as it arrives, without an answer and without waiting for a timeout.
      const started = performance.now();
      expect(await request('127.0.0.1')).toBe('closed without an answer');
      expect(performance.now() - started).toBeLessThan(1_000);
      // Another client is served.
      expect(await request('127.0.0.2')).toBe(200);
      // That connection is gone on the server's side too before the cap in all is filled.
      await new Promise((resolve) => setTimeout(resolve, 100));

      // Fill the cap in all from two more addresses; a fourth address is then refused too.
      for (let index = PER_ADDRESS; index < MAX; index++) held.push(await hold(index % 2 ? '127.0.0.3' : '127.0.0.4'));
      expect(await request('127.0.0.5')).toBe('closed without an answer');
    } finally {
      for (const socket of held) socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await request('127.0.0.1')).toBe(200);
    expect(await request('127.0.0.5')).toBe(200);
  });

  it('says in the log, at most once a second, how many connections it refused and why', async () => {
    // Refusals are reported a second after the first of a batch.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    // Stopping flushes the log, as SIGTERM does.
    await server.stop();
    const reports = server
      .stdout()
      .split('\n')
      .filter((line) => line.includes('connections refused over the cap'))
      .map((line) => JSON.parse(line) as { level: number; refusedConnections: { total: number; perAddress: number }; maxConnections: number });
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.every((report) => report.level === 40 && report.maxConnections === MAX)).toBe(true);
    const refused = reports.reduce(
      (sum, report) => ({ total: sum.total + report.refusedConnections.total, perAddress: sum.perAddress + report.refusedConnections.perAddress }),
      {
        total: 0,
        perAddress: 0,
      },
    );
    expect(refused).toEqual({ total: 1, perAddress: 1 });
  });
});

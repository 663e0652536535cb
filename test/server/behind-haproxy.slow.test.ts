/**
 * The server behind a real HAProxy (Debian's package; `.ci/run` installs it), with TRUSTED_PROXIES set
 * to the proxy's address: clients on different loopback addresses (127.0.0.2, 127.0.0.3, ...) reach the
 * server through the proxy, so the server's socket peer is always the proxy, and each client must
 * still be counted and logged as itself. Without TRUSTED_PROXIES every one of them had the proxy's
 * address: one client's made-up keys, or 20 wrong passwords, locked out every other (issue 20, finding 2).
 * One backend gets `X-Forwarded-For` (`option forwardfor`), another `Forwarded` (RFC 7239).
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { accepting } from '../../tools/cluster/haproxy.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';
import { makeKey } from '../../tools/process/make-key.js';
import { type ScratchDatabase, scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';

const PASSWORD = 'correct horse battery staple';
const databases: ScratchDatabase[] = [];
const processes: LaunchedProcess[] = [];
let validKey: string;
/** The proxy's ports: the public API and the web application of the server that reads X-Forwarded-For, the public API of the one that reads Forwarded. */
const front = { api: 0, web: 0, forwarded: 0 };

async function server(env: Record<string, string>): Promise<ServerProcess & { webPort: number }> {
  const database = scratchDatabase('haproxy-');
  databases.push(database);
  if (!validKey) validKey = (await makeKey(database.path, 'ann')).key;
  const started = await startServer({ databasePath: database.path, env: { FAILED_AUTH_PER_ADDRESS: '3', ...env } });
  processes.push(started);
  const web = /^Web application on (\S+)$/m.exec(started.stderr())?.[1] ?? '';
  return { ...started, webPort: Number(new URL(web).port) };
}

let xff: Awaited<ReturnType<typeof server>>;
let rfc7239: Awaited<ReturnType<typeof server>>;

beforeAll(async () => {
  xff = await server({ TRUSTED_PROXIES: '127.0.0.1' });
  rfc7239 = await server({ TRUSTED_PROXIES: '127.0.0.1', FORWARDED_HEADER: 'forwarded' });
  front.api = await portToBindLater();
  front.web = await portToBindLater();
  front.forwarded = await portToBindLater();
  const config = join(tmpdir(), `haproxy-${process.pid}.cfg`);
  writeFileSync(
    config,
    [
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 30s',
      '  timeout server 30s',
      `frontend api\n  bind 127.0.0.1:${front.api}\n  option forwardfor\n  default_backend api`,
      `backend api\n  server s 127.0.0.1:${xff.port}`,
      `frontend web\n  bind 127.0.0.1:${front.web}\n  option forwardfor\n  default_backend web`,
      `backend web\n  server s 127.0.0.1:${xff.webPort}`,
      // HAProxy 2.6 has no `option forwarded` yet: each hop adds its element, as RFC 7239 asks.
      `frontend forwarded\n  bind 127.0.0.1:${front.forwarded}\n  http-request add-header Forwarded for=%[src]\n  default_backend forwarded`,
      `backend forwarded\n  server s 127.0.0.1:${rfc7239.port}`,
      '',
    ].join('\n'),
  );
  const haproxy = launch(['haproxy', '-db', '-f', config]);
  processes.push(haproxy);
  for (const port of Object.values(front)) await accepting(`127.0.0.1:${port}`, haproxy);
});

afterAll(async () => {
  for (const started of processes.reverse()) await started.stop();
  for (const database of databases) database.remove();
});

/** A request through the proxy from the loopback address `from`. */
function send(port: number, from: string, init: { method?: string; path: string; headers?: Record<string, string>; body?: unknown }): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        method: init.method ?? 'GET',
        path: init.path,
        agent: false,
        headers: { ...init.headers, ...(body !== undefined && { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }) },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const madeUp = (port: number, from: string, headers: Record<string, string> = {}) =>
  send(port, from, { path: '/shared', headers: { Authorization: `Bearer ${generateApiKey().key}`, ...headers } });

async function requestLines(started: ServerProcess): Promise<Array<Record<string, unknown>>> {
  started.signal('SIGHUP');
  await new Promise((resolve) => setTimeout(resolve, 300));
  return started
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"durationMs"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('behind HAProxy, with TRUSTED_PROXIES', () => {
  it("counts each client's failed authentications on its own, and logs it as itself (X-Forwarded-For)", async () => {
    const attacker = '127.0.0.2';
    const neighbour = '127.0.0.3';
    expect([await madeUp(front.api, attacker), await madeUp(front.api, attacker), await madeUp(front.api, attacker)]).toEqual([401, 401, 401]);
    expect(await madeUp(front.api, attacker)).toBe(429);
    // A forged header only adds hops before the one HAProxy writes: the attacker stays itself.
    expect(await madeUp(front.api, attacker, { 'X-Forwarded-For': neighbour })).toBe(429);
    expect(await madeUp(front.api, neighbour)).toBe(401);
    expect(await send(front.api, neighbour, { path: '/shared', headers: { Authorization: `Bearer ${validKey}` } })).toBe(200);
    const lines = (await requestLines(xff)).filter((line) => line['path'] === '/shared');
    expect(lines.map((line) => [line['clientAddress'], line['status']])).toEqual([
      [attacker, 401],
      [attacker, 401],
      [attacker, 401],
      [attacker, 429],
      [attacker, 429],
      [neighbour, 401],
      [neighbour, 200],
    ]);
  });

  it("limits one client's wrong passwords without locking anyone else out of sign-in", async () => {
    const guesser = '127.0.0.4';
    const owner = '127.0.0.5';
    expect(await send(front.web, owner, { method: 'POST', path: '/api/users', body: { name: 'ada', password: PASSWORD } })).toBe(201);
    const guesses: number[] = [];
    // x-limits.signIn.failuresPerClient is 20; the account's own limit (10) is not reached by guessing other names.
    for (let index = 0; index < 21; index++)
      guesses.push(await send(front.web, guesser, { method: 'POST', path: '/api/session', body: { name: `nobody-${index}`, password: PASSWORD } }));
    expect(guesses.slice(0, 20).every((status) => status === 401)).toBe(true);
    expect(guesses[20]).toBe(429);
    expect(await send(front.web, owner, { method: 'POST', path: '/api/session', body: { name: 'ada', password: PASSWORD } })).toBe(200);
  });

  it('reads RFC 7239 Forwarded when FORWARDED_HEADER says so, and only it', async () => {
    const attacker = '127.0.0.6';
    for (let index = 0; index < 3; index++) expect(await madeUp(front.forwarded, attacker)).toBe(401);
    expect(await madeUp(front.forwarded, attacker, { 'X-Forwarded-For': '127.0.0.7' })).toBe(429);
    expect(await madeUp(front.forwarded, '127.0.0.7')).toBe(401);
    const lines = (await requestLines(rfc7239)).filter((line) => line['path'] === '/shared');
    expect(lines.map((line) => line['clientAddress'])).toEqual([attacker, attacker, attacker, attacker, '127.0.0.7']);
  });
});

/**
 * Two real server processes on one real PostgreSQL (the run's, from the global setup), started at the
 * same moment on an empty database so their migrations race. They share keys and each key's quota,
 * and a key revoked with the CLI fails on both within the documented time. A flood of made-up keys from
 * many addresses refuses no valid key on either, and keys created at once on both never pass the
 * active-key cap (issue 20).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLimits } from '../../src/contract/limits.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { leaseBlock } from '../../src/http/shared-rate-limit.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { makeKey } from '../../tools/process/make-key.js';
import { runCommand } from '../../tools/process/run-command.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { expectHonoursContract } from '../helpers/contract.js';
import { freshDatabase } from '../helpers/postgres.js';
import { accountChecker, accountSpec } from '../helpers/web-app.js';

const QUOTA = 100;
const ACTIVE_KEY_CAP = readLimits(accountSpec, 'account').keys.activePerUser;

let databaseUrl: string;
let servers: ServerProcess[] = [];

const env = () => ({
  DATABASE_URL: databaseUrl,
  RATE_LIMIT_REQUESTS: String(QUOTA),
  RATE_LIMIT_WINDOW_SECONDS: '3600',
  // A long backstop: a revocation seen within a second below can only have come by NOTIFY.
  CACHE_TTL_MS: '60000',
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  // The test is the proxy: it names the clients of a flood in X-Forwarded-For.
  TRUSTED_PROXIES: '127.0.0.1',
  // One web application behind one balancer, as deployed: a session started on one instance is good on the other.
  WEB_ORIGIN: 'http://keys.test',
});

beforeAll(async () => {
  databaseUrl = await freshDatabase('cluster');
  servers = await Promise.all([0, 1].map(() => startServer({ databasePath: ':unused:', env: env(), timeoutMs: 30_000 })));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

function expectHonoursAccountContract(operationId: string, answer: { status: number; headers: Headers; body: string }): void {
  expect(accountChecker.check(operationId, answer), `${operationId} answered ${answer.status} ${answer.body.slice(0, 300)}`).toEqual([]);
}

async function call(server: ServerProcess, key: string): Promise<Response & { text: string }> {
  const response = await fetch(`${server.url}/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const text = await response.text();
  expectHonoursContract('listOwnItems', { status: response.status, headers: response.headers, body: text });
  return Object.assign(response, { text });
}

describe('two instances on one PostgreSQL', () => {
  it('both started on an empty database at once, and both serve a key made with the CLI', async () => {
    const { key } = await makeKey(':unused:', 'ann', { DATABASE_URL: databaseUrl });
    for (const server of servers) expect((await call(server, key)).status).toBe(200);
  });

  it(`grant a quota of ${QUOTA} once between them when the requests alternate, never more, at most the documented block fewer`, async () => {
    const { key } = await makeKey(':unused:', 'bob', { DATABASE_URL: databaseUrl });
    const statuses: number[] = [];
    let lastRefusal: Response | undefined;
    for (let index = 0; index < QUOTA + 40; index++) {
      const response = await call(servers[index % 2] as ServerProcess, key);
      statuses.push(response.status);
      if (response.status === 429) lastRefusal = response;
    }
    const granted = statuses.filter((status) => status === 200).length;
    // docs/adr/0010: never more than the quota; at most (instances - 1) x block fewer.
    expect(granted).toBeLessThanOrEqual(QUOTA);
    expect(granted).toBeGreaterThanOrEqual(QUOTA - leaseBlock(QUOTA));
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(lastRefusal?.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(lastRefusal?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('grant no more than the quota to requests sent to both at once', async () => {
    const { key } = await makeKey(':unused:', 'cyd', { DATABASE_URL: databaseUrl });
    const statuses = await Promise.all(Array.from({ length: QUOTA + 50 }, async (_, index) => (await call(servers[index % 2] as ServerProcess, key)).status));
    const granted = statuses.filter((status) => status === 200).length;
    expect(granted).toBeLessThanOrEqual(QUOTA);
    expect(granted).toBeGreaterThanOrEqual(QUOTA - leaseBlock(QUOTA));
  });

  it('refuse a key revoked with the CLI on both instances within a second, the backstop being a minute', async () => {
    const { id, key } = await makeKey(':unused:', 'dee', { DATABASE_URL: databaseUrl });
    for (const server of servers) expect((await call(server, key)).status).toBe(200);
    const revoked = await runCommand(tsxCommand('src/cli/keys.ts', ['revoke', id]), { env: { DATABASE_URL: databaseUrl } });
    expect(revoked.code, revoked.stderr).toBe(0);
    const started = performance.now();
    const seenAfter: number[] = [];
    for (const server of servers) {
      for (;;) {
        const response = await call(server, key);
        if (response.status === 401) break;
        expect(performance.now() - started, 'revocation not seen within 1 s').toBeLessThan(1_000);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      seenAfter.push(performance.now() - started);
    }
    expect(seenAfter).toHaveLength(2);
  });

  it('serve every valid key on both, a new one included, after 2,100 made-up keys from 21 addresses at one of them', async () => {
    const { key: known } = await makeKey(':unused:', 'eve', { DATABASE_URL: databaseUrl });
    for (const server of servers) expect((await call(server, known)).status).toBe(200);
    const flooded = servers[0] as ServerProcess;
    const answers: Record<number, number> = {};
    for (let client = 0; client < 21; client++) {
      const statuses = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const response = await fetch(`${flooded.url}/shared`, {
            headers: { authorization: `Bearer ${generateApiKey().key}`, 'x-forwarded-for': `198.51.100.${client}` },
          });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      for (const status of statuses) answers[status] = (answers[status] ?? 0) + 1;
    }
    expect(answers).toEqual({ 401: 2_100 });
    // A key made by another writer: a write that empties both instances' key caches (NOTIFY).
    const { key: fresh } = await makeKey(':unused:', 'eve', { DATABASE_URL: databaseUrl });
    for (const server of servers) {
      expect((await call(server, fresh)).status).toBe(200);
      expect((await call(server, known)).status).toBe(200);
    }
  });

  it(`make no more than ${ACTIVE_KEY_CAP} active keys for 25 creates sent to both at once, answering the rest 409`, async () => {
    const [one, two] = servers as [ServerProcess, ServerProcess];
    // A client that is not a browser (no Origin): the session cookie is all the account API asks for.
    const signUp = await fetch(`${one.webUrl}/api/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fay', password: 'correct horse battery staple' }),
    });
    expect(signUp.status, await signUp.text()).toBe(201);
    const cookie = (signUp.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const create = async (index: number) => {
      const response = await fetch(`${(index % 2 === 0 ? one : two).webUrl}/api/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ name: `at once ${index}` }),
      });
      const text = await response.text();
      expectHonoursAccountContract('createKey', { status: response.status, headers: response.headers, body: text });
      return response.status;
    };
    const statuses = await Promise.all(Array.from({ length: 25 }, (_, index) => create(index)));
    expect({ 201: statuses.filter((status) => status === 201).length, 409: statuses.filter((status) => status === 409).length }).toEqual({
      201: ACTIVE_KEY_CAP,
      409: 25 - ACTIVE_KEY_CAP,
    });
    const listed = await fetch(`${two.webUrl}/api/keys`, { headers: { cookie } });
    const { keys } = (await listed.json()) as { keys: Array<{ status: string }> };
    expect(keys.filter((key) => key.status === 'active')).toHaveLength(ACTIVE_KEY_CAP);
  });
});

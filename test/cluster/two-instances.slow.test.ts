/**
 * Two real server processes on one real PostgreSQL (the run's, from the global setup), started at the
 * same moment on an empty database so their migrations race. They share keys and each key's quota,
 * and a key revoked with the CLI fails on both within the documented time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseBlock } from '../../src/server/shared-rate-limit.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { makeKey } from '../../tools/process/make-key.js';
import { runCommand } from '../../tools/process/run-command.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { expectHonoursContract } from '../helpers/contract.js';
import { freshDatabase } from '../helpers/postgres.js';

const QUOTA = 100;
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
});

beforeAll(async () => {
  databaseUrl = await freshDatabase('cluster');
  servers = await Promise.all([0, 1].map(() => startServer({ databasePath: ':unused:', env: env(), timeoutMs: 30_000 })));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

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
    const { key } = await makeKey(':unused:', 'cy', { DATABASE_URL: databaseUrl });
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
});

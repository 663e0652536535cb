/**
 * Rate limiting per key, as the contract declares it: a fixed window per key,
 * `RateLimit-Limit` / `-Remaining` / `-Reset` on every answer that passed
 * authentication (IETF RateLimit header draft style), `429` with `Retry-After`
 * once the window's quota is used. In-process with a fake clock; one real
 * process to show the environment variables reach it.
 */
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { makeKey } from '../../tools/process/make-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { createTestApp, type TestResponse } from '../helpers/app.js';
import { requestContract } from '../helpers/contract.js';
import { startInProcessServer } from '../helpers/in-process-server.js';

const quota = (response: TestResponse) => ({
  status: response.status,
  limit: response.headers.get('ratelimit-limit'),
  remaining: response.headers.get('ratelimit-remaining'),
  reset: response.headers.get('ratelimit-reset'),
  retryAfter: response.headers.get('retry-after'),
});

async function limited(requests: number, windowSeconds: number) {
  const t = await createTestApp({ limits: { rateLimit: { requests, windowSeconds } } });
  const ann = await t.addUser('ann');
  return { t, ann, call: (key = ann.key) => t.send('POST', '/', { key, body: {} }) };
}

describe('rate limiting per key', () => {
  it('counts down on every answer, then answers 429 with Retry-After and the same headers', async () => {
    const { t, call } = await limited(3, 60);
    expect(quota(await call())).toEqual({ status: 200, limit: '3', remaining: '2', reset: '60', retryAfter: null });
    t.clock.now += 1_000;
    expect(quota(await call())).toEqual({ status: 200, limit: '3', remaining: '1', reset: '59', retryAfter: null });
    expect(quota(await call())).toEqual({ status: 200, limit: '3', remaining: '0', reset: '59', retryAfter: null });
    const refused = await call();
    expect(quota(refused)).toEqual({ status: 429, limit: '3', remaining: '0', reset: '59', retryAfter: '59' });
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.json).toMatchObject({ type: 'urn:problem-type:rate-limited', status: 429 });
    expect(refused.json.detail).toContain('59 seconds');
  });

  it('keeps refusing until the window ends, counting Retry-After down, and never says 0 while refusing', async () => {
    const { t, call } = await limited(1, 60);
    const start = t.clock.now;
    await call();
    for (const [elapsedMs, retryAfter] of [
      [10_000, '50'],
      [30_500, '30'],
      [59_000, '1'],
      [59_999, '1'],
    ] as const) {
      t.clock.now = start + elapsedMs;
      expect(quota(await call()), `${elapsedMs} ms into the window`).toMatchObject({ status: 429, retryAfter });
    }
  });

  it('restores the full quota when the window ends', async () => {
    const { t, call } = await limited(2, 10);
    const start = t.clock.now;
    await call();
    await call();
    expect((await call()).status).toBe(429);
    t.clock.now = start + 10_000;
    expect(quota(await call())).toEqual({ status: 200, limit: '2', remaining: '1', reset: '10', retryAfter: null });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);
  });

  it('counts each key on its own: another key of the same user, and another user, are not affected', async () => {
    const { t, ann, call } = await limited(2, 60);
    const annSecond = await t.addUser('ann');
    const bob = await t.addUser('bob');
    await call();
    await call();
    expect((await call()).status).toBe(429);
    expect(quota(await call(annSecond.key))).toMatchObject({ status: 200, remaining: '1' });
    expect(quota(await call(bob.key))).toMatchObject({ status: 200, remaining: '1' });
    expect((await call(ann.key)).status).toBe(429);
  });

  it('shares one quota across the operations of a key', async () => {
    const { t, ann } = await limited(3, 60);
    expect(quota(await t.send('POST', '/', { key: ann.key, body: {} })).remaining).toBe('2');
    expect(quota(await t.send('POST', '/shared', { key: ann.key, body: {} })).remaining).toBe('1');
    expect(quota(await t.send('GET', '/shared', { key: ann.key })).remaining).toBe('0');
    expect((await t.send('GET', '/shared', { key: ann.key })).status).toBe(429);
  });

  it('counts requests the contract refuses after authentication, and answers 429 before reading the body', async () => {
    const { t, ann, call } = await limited(2, 60);
    const invalid = await t.send('POST', '/', { key: ann.key, body: { sort: 'sideways' } });
    expect(quota(invalid)).toMatchObject({ status: 422, remaining: '1' });
    await call();
    const broken = await t.send('POST', '/', { key: ann.key, headers: { 'Content-Type': 'application/json' }, rawBody: new TextEncoder().encode('{"sort":') });
    expect(quota(broken)).toMatchObject({ status: 429, retryAfter: '60' });
  });

  it("does not spend anyone's quota on requests without a valid key, and sends them no quota headers", async () => {
    const { t, call } = await limited(1, 60);
    for (let index = 0; index < 5; index++) {
      const refused = await t.send('POST', '/', { headers: { Authorization: 'Bearer nope' }, body: {} });
      expect(quota(refused)).toEqual({ status: 401, limit: null, remaining: null, reset: null, retryAfter: null });
    }
    expect((await call()).status).toBe(200);
  });

  it("takes its default from the spec's x-limits", async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const { requests, windowSeconds } = requestContract.limits.rateLimit;
    expect(quota(await t.send('POST', '/', { key, body: {} }))).toEqual({
      status: 200,
      limit: String(requests),
      remaining: String(requests - 1),
      reset: String(windowSeconds),
      retryAfter: null,
    });
  });

  it('is configured by RATE_LIMIT_REQUESTS and RATE_LIMIT_WINDOW_SECONDS, read from the environment by the server', async () => {
    const database = scratchDatabase('rate-');
    try {
      const { key } = await makeKey(database.path, 'ann');
      const server = await startInProcessServer({ databasePath: database.path, env: { RATE_LIMIT_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '5' } });
      try {
        const call = () => fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${key}` } });
        const answers = [];
        for (let index = 0; index < 3; index++) {
          const response = await call();
          await response.arrayBuffer();
          answers.push({
            status: response.status,
            limit: response.headers.get('ratelimit-limit'),
            remaining: response.headers.get('ratelimit-remaining'),
            retryAfter: response.headers.get('retry-after'),
          });
        }
        expect(answers).toEqual([
          { status: 200, limit: '2', remaining: '1', retryAfter: null },
          { status: 200, limit: '2', remaining: '0', retryAfter: null },
          { status: 429, limit: '2', remaining: '0', retryAfter: expect.stringMatching(/^[1-5]$/) },
        ]);
      } finally {
        await server.stop();
      }
    } finally {
      database.remove();
    }
  });
});

describe('failed authentications are limited per client address (x-limits.failedAuthentication)', () => {
  /** An app whose client address is the test's `X-Test-Client` header, so one test plays many clients. */
  async function budgeted(perAddress = requestContract.limits.failedAuthentication.perAddress) {
    const { failedAuthentication } = requestContract.limits;
    const t = await createTestApp({
      limits: { failedAuthentication: { ...failedAuthentication, perAddress } },
      clientAddress: (c) => c.req.header('x-test-client') ?? 'in-process',
    });
    const known = await t.addUser('ann');
    const fresh = await t.addUser('bob');
    // Lookups that reach the database: those the key cache cannot answer.
    let lookups = 0;
    const find = t.store.findKeyByDigest.bind(t.store);
    t.store.findKeyByDigest = (digest) => {
      if (t.store.peekKeyByDigest?.(digest) === undefined) lookups++;
      return find(digest);
    };
    const from = (client: string, key?: string) => t.send('POST', '/', { headers: { 'X-Test-Client': client }, ...(key !== undefined && { key }), body: {} });
    return { t, known, fresh, from, lookups: () => lookups, made: (client = 'attacker') => from(client, generateApiKey().key) };
  }

  it('per client: over the budget, requests without a valid key get 429 instead of 401; a valid key from that address is still served, known or not', async () => {
    const { t, known, fresh, from, made } = await budgeted(3);
    expect((await from('attacker', known.key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await made()).status).toBe(401);
    const refused = await made();
    expect(quota(refused)).toEqual({ status: 429, limit: '3', remaining: '0', reset: '60', retryAfter: '60' });
    expect(refused.json.detail).toMatch(/This client has sent 3 requests with missing or invalid credentials .*a valid key is still served/);
    expect((await from('attacker')).status).toBe(429);
    // Behind one address (an office, a NAT) the valid keys of others are served all the same, even one never seen before.
    expect((await from('attacker', known.key)).status).toBe(200);
    expect((await from('attacker', fresh.key)).status).toBe(200);
    expect((await made('someone else')).status).toBe(401);
    t.clock.now += 60_000;
    expect((await made()).status).toBe(401);
  });

  it('no budget in all: made-up keys from many addresses never refuse a valid key, even one the cache has forgotten', async () => {
    // The attack: 2,100 made-up keys from 21 addresses, each within its own budget, then one write that empties the key cache.
    const { t, known, fresh, from, made } = await budgeted();
    expect((await from('ann', known.key)).status).toBe(200);
    const answers = new Map<number, number>();
    for (let client = 0; client < 21; client++)
      for (let i = 0; i < 100; i++) {
        const { status } = await made(`flood-${client}`);
        answers.set(status, (answers.get(status) ?? 0) + 1);
      }
    expect(Object.fromEntries(answers)).toEqual({ 401: 2_100 });
    await t.addUser('mallory');
    expect((await from('ann', known.key)).status).toBe(200);
    expect((await from('bob', fresh.key)).status).toBe(200);
    expect((await from('carol')).status).toBe(401);
  });

  it('costs a made-up key at most one lookup: none for a wrong checksum, one per unknown digest, none over the budget for what is known to be no key', async () => {
    const { t, known, from, made, lookups } = await budgeted(4);
    const key = generateApiKey().key;
    const mistyped = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    await t.store.revokeKey(known.keyId, new Date(t.clock.now).toISOString());
    expect((await from('attacker', mistyped)).status).toBe(401);
    expect(lookups()).toBe(0);
    expect((await from('attacker', key)).status).toBe(401);
    expect((await from('attacker', key)).status).toBe(401);
    expect(lookups()).toBe(1);
    expect((await from('attacker', known.key)).status).toBe(401);
    expect(lookups()).toBe(2);
    // Over the budget: the digest known to be no key, the revoked key and the header without a key cost no lookup ...
    for (const sent of [key, known.key, mistyped, undefined]) expect((await from('attacker', sent)).status).toBe(429);
    expect(lookups()).toBe(2);
    // ... and a digest the cache does not know is looked up, since it might be a valid key.
    expect((await made()).status).toBe(429);
    expect(lookups()).toBe(3);
  });
});

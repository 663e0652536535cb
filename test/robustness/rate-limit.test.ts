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
import { startServer } from '../../tools/process/server.js';
import { createTestApp, type TestResponse } from '../helpers/app.js';
import { requestContract } from '../helpers/contract.js';

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

  it('is configured by RATE_LIMIT_REQUESTS and RATE_LIMIT_WINDOW_SECONDS in a real process', async () => {
    const database = scratchDatabase('rate-');
    try {
      const { key } = await makeKey(database.path, 'ann');
      const server = await startServer({ databasePath: database.path, env: { RATE_LIMIT_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '5' } });
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

describe('failed authentications are limited too (x-limits.failedAuthentication)', () => {
  async function budgeted(perAddress: number, total: number) {
    const { failedAuthentication } = requestContract.limits;
    const t = await createTestApp({ limits: { failedAuthentication: { ...failedAuthentication, perAddress, total } } });
    const known = await t.addUser('ann');
    const fresh = await t.addUser('bob');
    return { t, known, fresh, made: () => t.send('POST', '/', { key: generateApiKey().key, body: {} }) };
  }

  it('per client: over the budget, missing or made-up credentials get 429 instead of 401; a key the service knows is still served', async () => {
    const { t, known, made } = await budgeted(3, 1_000);
    expect((await t.send('POST', '/', { key: known.key, body: {} })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await made()).status).toBe(401);
    const refused = await made();
    expect(quota(refused)).toEqual({ status: 429, limit: '3', remaining: '0', reset: '60', retryAfter: '60' });
    expect(refused.json.detail).toMatch(/This client has sent 3 requests with missing or invalid credentials/);
    expect((await t.send('POST', '/', { body: {} })).status).toBe(429);
    expect((await t.send('POST', '/', { key: known.key, body: {} })).status).toBe(200);
    t.clock.now += 60_000;
    expect((await made()).status).toBe(401);
  });

  it('in all: over the budget, a key the cache does not know is refused without a lookup; known keys are served', async () => {
    const { t, known, fresh, made } = await budgeted(1_000, 5);
    expect((await t.send('POST', '/', { key: known.key, body: {} })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await made()).status).toBe(401);
    let lookups = 0;
    const find = t.store.findKeyByDigest.bind(t.store);
    t.store.findKeyByDigest = (digest) => (lookups++, find(digest));
    expect((await made()).status).toBe(429);
    expect((await t.send('POST', '/', { key: fresh.key, body: {} })).status).toBe(429);
    expect(lookups).toBe(0);
    expect((await t.send('POST', '/', { key: known.key, body: {} })).status).toBe(200);
  });
});

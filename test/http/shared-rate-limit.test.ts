import { describe, expect, it } from 'vitest';
import { leaseBlock, SharedRateLimiter } from '../../src/http/shared-rate-limit.js';
import { type QuotaLease, type QuotaRequest, type Store, StoreUnavailable } from '../../src/store/store.js';
import { createTestApp } from '../helpers/app.js';

/** The database's side of `leaseQuota` (as `lease_quota` in PostgreSQL does it), on a clock the test moves. */
function fakeDatabase() {
  const clock = { now: 1_000_000 };
  const rows = new Map<string, { window: number; used: number }>();
  const calls = { total: 0, inFlight: 0, maxInFlight: 0 };
  let down = false;
  const store = {
    async leaseQuota(keyId: string, request: QuotaRequest): Promise<QuotaLease> {
      calls.total++;
      calls.inFlight++;
      calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (down) throw new StoreUnavailable('the database is unavailable: connect ECONNREFUSED');
        const current = Math.floor(clock.now / request.windowMs);
        const row = rows.get(keyId);
        const counted = row && row.window >= current ? row.used : 0;
        const granted = Math.min(request.want, Math.max(request.limit - counted, 0));
        rows.set(keyId, { window: current, used: counted + granted });
        return { granted, used: counted + granted, resetMs: (current + 1) * request.windowMs - clock.now };
      } finally {
        calls.inFlight--;
      }
    },
  } as unknown as Store;
  return { store, clock, calls, setDown: (value: boolean) => (down = value) };
}

const limiter = (db: ReturnType<typeof fakeDatabase>, requests: number, block?: number) =>
  new SharedRateLimiter({ store: db.store, requests, windowSeconds: 60, now: () => db.clock.now, ...(block !== undefined && { block }) });

describe('the shared rate limiter', () => {
  it('takes blocks of 2% of the quota, at least 1 and at most 100', () => {
    expect([1, 49, 100, 600, 5_000, 1_000_000].map(leaseBlock)).toEqual([1, 1, 2, 12, 100, 100]);
  });

  it('lets instances together grant exactly the quota when requests alternate, going to the database once a block', async () => {
    const db = fakeDatabase();
    const instances = [limiter(db, 100), limiter(db, 100)];
    const allowed = [];
    for (let index = 0; index < 140; index++) allowed.push((await instances[index % 2]!.take('key_a')).allowed);
    expect(allowed.filter(Boolean)).toHaveLength(100);
    expect(allowed.slice(100).some(Boolean)).toBe(false);
    // 50 blocks of 2, then one empty answer per instance; after that they refuse from memory.
    expect(db.calls.total).toBe(52);
  });

  it('never grants more than the quota, and asks for one block at a time, under concurrent requests', async () => {
    const db = fakeDatabase();
    const instances = [limiter(db, 30, 4), limiter(db, 30, 4), limiter(db, 30, 4)];
    const quotas = await Promise.all(Array.from({ length: 90 }, (_, index) => instances[index % 3]!.take('key_a')));
    expect(quotas.filter((quota) => quota.allowed)).toHaveLength(30);
    expect(db.calls.maxInFlight).toBeLessThanOrEqual(3);
  });

  it('answers from memory while a block lasts: synchronously, with the remaining count going down', async () => {
    const db = fakeDatabase();
    const one = limiter(db, 600);
    const first = await one.take('key_a');
    expect(first).toEqual({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60 - ((db.clock.now / 1000) % 60) });
    const second = one.take('key_a');
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toMatchObject({ allowed: true, remaining: 598 });
  });

  it('refuses with a positive reset until the window ends, then grants again', async () => {
    const db = fakeDatabase();
    const one = limiter(db, 2);
    await one.take('key_a');
    await one.take('key_a');
    const refused = await one.take('key_a');
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.resetSeconds).toBeGreaterThan(0);
    const calls = db.calls.total;
    expect(one.take('key_a')).toMatchObject({ allowed: false });
    expect(db.calls.total).toBe(calls);
    db.clock.now += refused.resetSeconds * 1000;
    expect(await one.take('key_a')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('fails with StoreUnavailable while the database is away, and recovers when it is back', async () => {
    const db = fakeDatabase();
    const one = limiter(db, 100);
    db.setDown(true);
    await expect(Promise.resolve(one.take('key_a'))).rejects.toBeInstanceOf(StoreUnavailable);
    db.setDown(false);
    expect(await one.take('key_a')).toMatchObject({ allowed: true });
  });
});

describe('an app with the shared rate limit (on SQLite here)', () => {
  it('announces the quota on every answer and refuses with 429, Retry-After and RateLimit-Remaining 0', async () => {
    const t = await createTestApp({ rateLimit: 'shared', limits: { rateLimit: { requests: 3, windowSeconds: 3600 } } });
    const { key } = await t.addUser('ann');
    const answers = [];
    for (let index = 0; index < 4; index++) answers.push(await t.send('POST', '/', { key, body: {} }));
    expect(answers.map((answer) => [answer.status, answer.headers.get('ratelimit-remaining')])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
    expect(Number(answers[3]?.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('a store that cannot be reached', () => {
  it('gets 503 problem+json with Retry-After, logged once a second without a stack, never a 500', async () => {
    const t = await createTestApp({ unavailableRetrySeconds: 3 });
    const { key } = await t.addUser('ann');
    const findKey = t.store.findKeyByDigest.bind(t.store);
    t.store.findKeyByDigest = async () => {
      throw new StoreUnavailable('the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432');
    };
    const answers = [await t.send('POST', '/', { key, body: {}, expectServerError: true }), await t.send('GET', '/shared', { key, expectServerError: true })];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('3');
      expect(answer.json).toMatchObject({ type: 'urn:problem-type:service-unavailable', title: 'Service unavailable', status: 503 });
    }
    const logged = t.logs.filter((line) => line['level'] === 'error');
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged)).not.toContain('.ts:');
    t.store.findKeyByDigest = findKey;
    expect((await t.send('POST', '/', { key, body: {} })).status).toBe(200);
  });
});

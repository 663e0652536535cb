/**
 * The budgets shared by every instance on one database (issue 33): a flood of made-up keys split among instances
 * spends one failed-authentication budget, within the bound docs/limits.md writes down, and the account API's
 * quota is one quota for all.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { failureBlock, SharedFailureBudget } from '../../src/http/failure-budget.js';
import { leaseBlock } from '../../src/http/shared-rate-limit.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/store/open-store.js';
import { keyedDigest, type SecretSource } from '../../src/store/secrets.js';
import { type QuotaLease, type QuotaRequest, type Store, StoreUnavailable } from '../../src/store/store.js';
import { requestContract } from '../helpers/contract.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';
import { createTestWebApp } from '../helpers/web-app.js';

/** The database's side of `leaseBudget`, one window long enough for the test, answering after a turn of the event loop. */
function fakeDatabase() {
  const used = new Map<string, number>();
  const calls: string[] = [];
  let down = false;
  const store = {
    async leaseBudget(key: string, request: QuotaRequest): Promise<QuotaLease> {
      calls.push(key);
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (down) throw new StoreUnavailable('the database is unavailable: connect ECONNREFUSED');
      const before = used.get(key) ?? 0;
      const granted = Math.min(request.want, Math.max(request.limit - before, 0));
      used.set(key, before + granted);
      return { granted, used: before + granted, resetMs: 30_000 };
    },
  } as unknown as Store;
  return { store, used, calls, setDown: (value: boolean) => (down = value) };
}

/** The instances' shared secret: the budgets' names are HMACs under it. */
const secrets: SecretSource = async () => ({ current: Buffer.alloc(32, 7), all: [Buffer.alloc(32, 7)] });
/** The name the database keeps for an address's failed-authentication budget. */
const stored = async (address: string) => `failed-authentication:${await keyedDigest(secrets, 'failure-keys')(address)}`;

/** The names of the budgets the database holds. */
const budgetNames = (url: string) =>
  withClient(url, async (client) => (await client.query<{ key: string }>('SELECT key FROM shared_budgets ORDER BY key')).rows.map((row) => row.key));

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('the shared failed-authentication budget', () => {
  it('takes blocks of a tenth of the budget, at least 1', () => {
    expect([1, 9, 10, 20, 100, 1_000].map(failureBlock)).toEqual([1, 1, 1, 2, 10, 100]);
  });

  it('lets instances together count the budget once, then both refuse the address until the window ends', async () => {
    const db = fakeDatabase();
    let now = 1_000_000;
    const make = () => new SharedFailureBudget({ store: db.store, secrets, scope: 'failed-authentication', perAddress: 20, windowSeconds: 60, now: () => now });
    const instances = [make(), make()];
    let counted = 0;
    // Failures alternate between the instances, each counted only while its instance has not learnt the budget is spent.
    for (let index = 0; index < 60; index++) {
      const instance = instances[index % 2]!;
      if (!instance.spent('203.0.113.7')) {
        instance.fail('203.0.113.7');
        counted++;
      }
      await settle();
    }
    expect(db.used.get(await stored('203.0.113.7'))).toBe(20);
    // The database is told an HMAC of the address, never the address (docs/data.md).
    expect(db.calls.filter((key) => key.includes('203.0.113.7'))).toEqual([]);
    expect(counted).toBeLessThanOrEqual(20 + 2);
    expect(counted).toBeGreaterThanOrEqual(20 - failureBlock(20));
    for (const instance of instances) expect(instance.spent('203.0.113.7')).toEqual({ limit: 20, resetSeconds: 30 });
    // Another address has its own budget; the window's end frees this one.
    expect(instances[0]!.spent('198.51.100.1')).toBeUndefined();
    now += 30_000;
    expect(instances[0]!.spent('203.0.113.7')).toBeUndefined();
  });

  it('never makes a request wait: failures past the block held are owed to the next one, asked once at a time', async () => {
    const db = fakeDatabase();
    const budget = new SharedFailureBudget({ store: db.store, secrets, scope: 'failed-authentication', perAddress: 100, windowSeconds: 60, now: () => 0 });
    for (let index = 0; index < 25; index++) budget.fail('203.0.113.7');
    // Microtasks only (the address's HMAC comes first): the database, a turn of the event loop away, has not answered.
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    expect(db.calls).toHaveLength(1);
    expect(budget.spent('203.0.113.7')).toBeUndefined();
    await settle();
    await settle();
    // 25 failures, blocks of 10: the first lease (11) paid what was owed by its answer, the second the other 14
    // and one block more, which this instance holds.
    expect(db.calls).toHaveLength(2);
    expect(db.used.get(await stored('203.0.113.7'))).toBe(25 + failureBlock(100));
    expect(budget.spent('203.0.113.7')).toBeUndefined();
  });

  it('counts nothing while the database is away, and starts again when it is back', async () => {
    const db = fakeDatabase();
    db.setDown(true);
    const budget = new SharedFailureBudget({ store: db.store, secrets, scope: 'failed-authentication', perAddress: 2, windowSeconds: 60, now: () => 0 });
    for (let index = 0; index < 5; index++) {
      budget.fail('203.0.113.7');
      await settle();
    }
    expect(budget.spent('203.0.113.7')).toBeUndefined();
    db.setDown(false);
    for (let index = 0; index < 3; index++) {
      budget.fail('203.0.113.7');
      await settle();
    }
    expect(budget.spent('203.0.113.7')).toMatchObject({ limit: 2 });
  });
});

describe('a made-up-key flood split between two instances on one PostgreSQL', () => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it('spends the one budget of a single instance, within the written bound', async () => {
    const url = await freshDatabase('failure-budget');
    const perAddress = 20;
    const apps = [];
    // Leases in flight, on both instances: each request goes once the last one's lease is answered, so "the failures
    // that arrive while an instance learns the budget is spent" are one per instance, however slow the machine is.
    let leasing = 0;
    for (let index = 0; index < 2; index++) {
      const store = await openStore({ databasePath: ':unused:', databaseUrl: url });
      stores.push(store);
      const counted = new Proxy(store, {
        get(target, property) {
          if (property === 'leaseBudget')
            return async (key: string, request: QuotaRequest) => {
              leasing++;
              try {
                return await target.leaseBudget(key, request);
              } finally {
                leasing--;
              }
            };
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      apps.push(
        createApp({
          store: counted,
          contract: requestContract,
          logger: { info: () => undefined, error: () => undefined },
          rateLimit: 'shared',
          limits: { failedAuthentication: { perAddress, windowSeconds: 3_600 } },
          clientAddress: () => '203.0.113.7',
        }),
      );
    }
    const statuses: number[] = [];
    for (let index = 0; index < 4 * perAddress; index++) {
      const response = await apps[index % 2]!.request('/shared', { headers: { Authorization: `Bearer ${generateApiKey().key}` } });
      statuses.push(response.status);
      await response.arrayBuffer();
      while (leasing > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const unauthorized = statuses.filter((status) => status === 401).length;
    // The bound (docs/limits.md): the budget, plus on each instance what arrives during the round trip in which it
    // learns the budget is spent (here, one request at a time, each after the leases it set off: at most one each); at most (N - 1) × block early.
    expect(unauthorized).toBeLessThanOrEqual(perAddress + 2);
    expect(unauthorized).toBeGreaterThanOrEqual(perAddress - failureBlock(perAddress));
    expect(statuses.slice(-2 * perAddress).every((status) => status === 429)).toBe(true);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    // What the database keeps is the scope and an HMAC of the address: no client address on disk in clear.
    const keys = await budgetNames(url);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^failed-authentication:[A-Za-z0-9_-]{43}$/);
  });
});

describe("the account API's quota on two instances on one PostgreSQL", () => {
  it('is one quota per address (and per session or device) for both, not one each', async () => {
    const databaseUrl = await freshDatabase('account-quota');
    const requests = 10;
    const instances = [];
    for (let index = 0; index < 2; index++)
      instances.push(await createTestWebApp({ databaseUrl, budgets: 'shared', limits: { rateLimit: { requests, windowSeconds: 3_600 } } }));
    try {
      const statuses: number[] = [];
      for (let index = 0; index < 4 * requests; index++) statuses.push((await instances[index % 2]!.send('GET', '/api/session')).status);
      const served = statuses.filter((status) => status !== 429).length;
      // The key quota's bound (docs/adr/0010): never more than the quota; at most (N - 1) × block early.
      expect(served).toBeLessThanOrEqual(requests);
      expect(served).toBeGreaterThanOrEqual(requests - leaseBlock(requests));
      expect(statuses.slice(-2 * requests).every((status) => status === 429)).toBe(true);
      // Named by an HMAC of who it is for, never the address, session or account itself.
      const names = await budgetNames(databaseUrl);
      expect(names.some((key) => key.startsWith('account-quota:'))).toBe(true);
      for (const key of names) expect(key).toMatch(/^(account-quota|failed-session):[A-Za-z0-9_-]{43}$/);
    } finally {
      for (const instance of instances) await instance.store.close();
    }
  });
});

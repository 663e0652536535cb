import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { CachedStore, PAGE_CACHE_BYTES } from '../../src/store/cached-store.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { ChangeSignal, Store } from '../../src/store/store.js';

const at = '2026-01-01T00:00:00.000Z';

/** A change signal the test flips by hand, as LISTEN/NOTIFY or `data_version` would. */
function manualSignal(): ChangeSignal & { trip(): void } {
  let tripped = false;
  return {
    trip: () => {
      tripped = true;
    },
    changes: () => {
      const was = tripped;
      tripped = false;
      return was ? 'everything' : undefined;
    },
  };
}

/** Counts the reads that reach the store under the cache. */
function counting(inner: Store): { store: Store; reads: { keys: number; pages: number } } {
  const reads = { keys: 0, pages: 0 };
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === 'findKeyByDigest') reads.keys++;
      if (name === 'listItems') reads.pages++;
      const value = Reflect.get(target, name) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, reads };
}

async function setup() {
  const engine = openSqliteStore(':memory:');
  const { store: inner, reads } = counting(engine.store);
  const signal = manualSignal();
  const cached = new CachedStore(inner, signal);
  const user = await cached.createUser('ann', at);
  const { digest, hint } = generateApiKey();
  const key = await cached.createKey(user.id, digest, hint, at);
  await cached.createItem(user.id, 'one', at);
  return { cached, engine, reads, signal, user, digest, key };
}

describe('the read cache over any store', () => {
  it('answers repeated key lookups and pages from memory', async () => {
    const { cached, reads, digest, user } = await setup();
    for (let i = 0; i < 3; i++) await cached.findKeyByDigest(digest);
    for (let i = 0; i < 3; i++) await cached.listItems('own', { userId: user.id, sort: 'asc', limit: 5 });
    expect(reads).toEqual({ keys: 1, pages: 1 });
  });

  it('forgets everything when the change signal says another writer committed', async () => {
    const { cached, engine, reads, signal, digest, key } = await setup();
    await cached.findKeyByDigest(digest);
    await engine.store.revokeKey(key.id, at); // behind the cache's back, as another process would
    signal.trip();
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBe(at);
    expect(reads.keys).toBe(2);
  });

  it('keeps a known key through a flood of made-up keys, which are remembered apart', async () => {
    const { cached, reads, digest } = await setup();
    await cached.findKeyByDigest(digest);
    for (let i = 0; i < 25_000; i++) await cached.findKeyByDigest(generateApiKey().digest);
    const before = reads.keys;
    expect(await cached.findKeyByDigest(digest)).toBeDefined();
    expect(reads.keys).toBe(before);
    expect(cached.peekKeyByDigest(digest)).toBeDefined();
  });

  it('forgets on its own writes, which the signal does not report', async () => {
    const { cached, digest, key } = await setup();
    await cached.findKeyByDigest(digest);
    await cached.revokeKey(key.id, at);
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBe(at);
  });

  it('forgets only the key its own key write names: other keys and pages stay in memory', async () => {
    const { cached, reads, digest, user } = await setup();
    const other = generateApiKey();
    const otherKey = await cached.createKey(user.id, other.digest, other.hint, at);
    await cached.findKeyByDigest(digest);
    await cached.findKeyByDigest(other.digest);
    await cached.listItems('own', { userId: user.id, sort: 'asc', limit: 5 });
    const before = { ...reads };
    // Churn on another key: made and revoked, as an operator's create/revoke loop does.
    const churn = generateApiKey();
    await cached.findKeyByDigest(churn.digest); // remembered as no key...
    const made = await cached.createKey(user.id, churn.digest, churn.hint, at);
    expect((await cached.findKeyByDigest(churn.digest))?.id).toBe(made.id); // ...and forgotten when made
    await cached.revokeKey(made.id, at);
    expect((await cached.findKeyByDigest(churn.digest))?.revokedAt).toBe(at);
    await cached.findKeyByDigest(digest);
    await cached.listItems('own', { userId: user.id, sort: 'asc', limit: 5 });
    expect(reads.pages).toBe(before.pages);
    // The churned key's own three lookups reached the store; the untouched key did not.
    expect(reads.keys).toBe(before.keys + 3);
    await cached.revokeKey(otherKey.id, at);
    expect((await cached.findKeyByDigest(other.digest))?.revokedAt).toBe(at);
  });

  it('does not let a read that began before a change refill the cache with what it read', async () => {
    const engine = openSqliteStore(':memory:');
    const signal = manualSignal();
    let release = () => {};
    let held = true;
    // The first key read answers from before the revocation, and only when the test lets it.
    const inner = new Proxy(engine.store, {
      get(target, name) {
        const value = Reflect.get(target, name) as unknown;
        if (name === 'findKeyByDigest' && held) {
          held = false;
          return async (digest: Buffer) => {
            const before = await target.findKeyByDigest(digest);
            await new Promise<void>((resolve) => (release = resolve));
            return before;
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const cached = new CachedStore(inner, signal);
    const user = await engine.store.createUser('ann', at);
    const { digest, hint } = generateApiKey();
    const key = await engine.store.createKey(user.id, digest, hint, at);
    const slow = cached.findKeyByDigest(digest);
    await new Promise((resolve) => setImmediate(resolve));
    await engine.store.revokeKey(key.id, at);
    signal.trip();
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBe(at);
    release();
    expect((await slow)?.revokedAt).toBeNull();
    // The slow read's old answer must not have replaced the fresh one in the cache.
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBe(at);
  });

  it('asks the signal on every lookup, a page read as well as a key check', async () => {
    const { cached, reads, signal, user } = await setup();
    const page = () => cached.listItems('own', { userId: user.id, sort: 'asc', limit: 5 });
    await page();
    await page();
    expect(reads.pages).toBe(1);
    signal.trip();
    await page();
    expect(reads.pages).toBe(2);
  });

  it('drops the oldest pages first when the next one would not fit, and never keeps a page larger than the whole budget', async () => {
    let reads = 0;
    // Each page about a tenth of the budget: 4,000 characters a title, 100 items.
    const title = 'x'.repeat(Math.round(PAGE_CACHE_BYTES / 10 / 100 / 2));
    const pageOf = (limit: number) => Array.from({ length: limit }, (_, index) => ({ id: `itm_${index}`, title, ownerId: 'usr_a', createdAt: at }));
    const inner = {
      listItems: async (_scope: string, query: { limit: number }) => {
        reads++;
        return pageOf(query.limit);
      },
    } as unknown as Store;
    const cached = new CachedStore(inner, { changes: () => undefined });
    const read = (page: number, limit = 100) => cached.listItems('own', { userId: 'usr_a', sort: 'asc', limit, after: { createdAt: at, id: `itm_${page}` } });
    for (let page = 0; page < 20; page++) await read(page);
    expect(reads).toBe(20);
    // The newest pages are still there; the first ones were dropped to make room.
    for (let page = 19; page >= 12; page--) await read(page);
    expect(reads).toBe(20);
    await read(0);
    expect(reads).toBe(21);
    // Eleven times larger than the budget allows: read from the store every time.
    await read(100, 1100);
    await read(100, 1100);
    expect(reads).toBe(23);
  });
});

describe('the read cache told what changed', () => {
  it('forgets only the keys named, pages only when items or shares changed, everything when the signal cannot tell', async () => {
    const { store: sqlite } = openSqliteStore(':memory:');
    const { store, reads } = counting(sqlite);
    let next: ReturnType<ChangeSignal['changes']>;
    const cached = new CachedStore(store, {
      changes: () => {
        const told = next;
        next = undefined;
        return told;
      },
    });
    const user = await sqlite.createUser('ann', at);
    const [one, two] = [generateApiKey(), generateApiKey()];
    await sqlite.createKey(user.id, one.digest, one.hint, at);
    await sqlite.createKey(user.id, two.digest, two.hint, at);
    const page = { userId: user.id, sort: 'asc' as const, limit: 10 };
    const readAll = async () => {
      await cached.findKeyByDigest(one.digest);
      await cached.findKeyByDigest(two.digest);
      await cached.listItems('own', page);
    };
    await readAll();
    expect(reads).toEqual({ keys: 2, pages: 1 });

    next = { digests: [one.digest], tables: new Set() };
    await readAll();
    expect(reads).toEqual({ keys: 3, pages: 1 });

    next = { digests: [], tables: new Set(['items']) };
    await readAll();
    expect(reads).toEqual({ keys: 3, pages: 2 });

    next = 'everything';
    await readAll();
    expect(reads).toEqual({ keys: 5, pages: 3 });
    await cached.close();
  });
});

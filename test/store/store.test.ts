import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../../src/config/env.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { MIGRATIONS, POSTGRES_MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { CODE_SCHEMA_VERSION, COMPATIBILITY_TABLE, oldestCodeFor, SchemaTooNew } from '../../src/store/schema-policy.js';
import { SQLITE_CHANGE_CHECK_MS } from '../../src/store/sqlite-store.js';
import {
  ActiveKeyLimitReached,
  CredentialChanged,
  type KeyPosition,
  type KeySummary,
  nextAttemptMs,
  type QuotaLease,
  type QuotaRequest,
  type Store,
} from '../../src/store/store.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';
import { findVisibleItem } from '../helpers/visible-item.js';

const scratch = mkdtempSync(join(tmpdir(), 'store-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const at = '2026-01-01T00:00:00.000Z';

/** One engine as the store contract sees it, with the few raw reads a test needs behind the port's back. */
interface Engine {
  name: string;
  /** A new, empty database that several stores can open at once (as several processes would). */
  fresh(): Promise<StoreConfig>;
  schemaVersion(config: StoreConfig): Promise<number>;
  setSchemaVersion(config: StoreConfig, version: number): Promise<void>;
  /** Writes the oldest code version the database says runs on it, as newer code that migrated it would. */
  setOldestCode(config: StoreConfig, version: number): Promise<void>;
  keyRows(config: StoreConfig): Promise<unknown[]>;
  /** How long another store's write may take to reach this one's cache: SQLite reads its change counter every 100 ms at most, PostgreSQL hears a NOTIFY. */
  propagationMs: number;
}

const sqlite: Engine = {
  name: 'SQLite',
  fresh: async () => ({ databasePath: join(scratch, `db-${++files}`, 'api.sqlite') }),
  async schemaVersion(config) {
    const raw = new Database(config.databasePath);
    const version = raw.pragma('user_version', { simple: true }) as number;
    raw.close();
    return version;
  },
  async setSchemaVersion(config, version) {
    const raw = new Database(config.databasePath);
    raw.pragma(`user_version = ${version}`);
    raw.close();
  },
  async setOldestCode(config, version) {
    const raw = new Database(config.databasePath);
    raw.prepare(`UPDATE ${COMPATIBILITY_TABLE} SET oldest_code = ?`).run(version);
    raw.close();
  },
  async keyRows(config) {
    const raw = new Database(config.databasePath);
    const rows = raw.prepare('SELECT * FROM api_keys').all();
    raw.close();
    return rows;
  },
  // The bound, and room for the polling steps around it.
  propagationMs: SQLITE_CHANGE_CHECK_MS + 200,
};

const postgres: Engine = {
  name: 'PostgreSQL',
  fresh: async () => ({ databasePath: ':unused:', databaseUrl: await freshDatabase('store') }),
  schemaVersion: (config) =>
    withClient(config.databaseUrl!, async (client) => (await client.query('SELECT max(version)::int AS v FROM schema_migrations')).rows[0].v),
  setSchemaVersion: (config, version) =>
    withClient(config.databaseUrl!, async (client) => void (await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]))),
  setOldestCode: (config, version) =>
    withClient(config.databaseUrl!, async (client) => void (await client.query(`UPDATE ${COMPATIBILITY_TABLE} SET oldest_code = $1`, [version]))),
  keyRows: (config) => withClient(config.databaseUrl!, async (client) => (await client.query('SELECT * FROM api_keys')).rows),
  propagationMs: 1_000,
};

/** Polls until `check` passes or `withinMs` is up (0: exactly once). */
async function eventually(check: () => Promise<void>, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (performance.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * Two stores on one database take turns leasing 4 of a limit of 10 in one window: 4, 4, 2, then nothing, each lease
 * saying how much the window has granted and when it ends. Returns the request, for the test's next leases.
 */
async function expectOneWindowShared(stores: [Store, Store], lease: (store: Store, request: QuotaRequest) => Promise<QuotaLease>): Promise<QuotaRequest> {
  const request = { limit: 10, windowMs: 3_600_000, want: 4 };
  const grants = [];
  for (const store of [...stores, ...stores]) grants.push(await lease(store, request));
  expect(grants.map((granted) => [granted.granted, granted.used])).toEqual([
    [4, 4],
    [4, 8],
    [2, 10],
    [0, 10],
  ]);
  for (const granted of grants) expect(granted.resetMs).toBeGreaterThan(0);
  for (const granted of grants) expect(granted.resetMs).toBeLessThanOrEqual(request.windowMs);
  return request;
}

describe.each([sqlite, postgres])('the store contract on $name, opened as the server opens it', (engine) => {
  const opened: Store[] = [];
  const open = async (config: StoreConfig) => {
    const store = await openStore(config);
    opened.push(store);
    return store;
  };
  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
  });

  it('applies migrations once; reopening keeps data and the cursor secret', async () => {
    const config = await engine.fresh();
    const first = await openStore(config);
    const user = await first.createUser('ann', at);
    const secret = await first.secret('cursor');
    await first.close();
    const second = await open(config);
    expect(await second.findUserByName('ann')).toEqual(user);
    expect(await second.secret('cursor')).toEqual(secret);
    expect(await engine.schemaVersion(config)).toBe(MIGRATIONS.length);
  });

  it('serves a database from newer code that says this code still runs on it, and leaves its schema as it is', async () => {
    const config = await engine.fresh();
    const user = await (async () => {
      const store = await openStore(config);
      const made = await store.createUser('ann', at);
      await store.close();
      return made;
    })();
    await engine.setSchemaVersion(config, CODE_SCHEMA_VERSION + 1);
    await engine.setOldestCode(config, CODE_SCHEMA_VERSION);
    const store = await open(config);
    expect(await store.findUserByName('ann')).toEqual(user);
    expect(await engine.schemaVersion(config)).toBe(CODE_SCHEMA_VERSION + 1);
  });

  it('refuses a database whose schema needs newer code, naming both versions and what to do', async () => {
    const config = await engine.fresh();
    await (await openStore(config)).close();
    await engine.setSchemaVersion(config, CODE_SCHEMA_VERSION + 2);
    await engine.setOldestCode(config, CODE_SCHEMA_VERSION + 1);
    const refusal = await openStore(config).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(SchemaTooNew);
    expect((refusal as Error).message).toBe(
      `the database is at schema version ${CODE_SCHEMA_VERSION + 2}, which runs code of schema version ${CODE_SCHEMA_VERSION + 1} or newer; ` +
        `this code is of schema version ${CODE_SCHEMA_VERSION}. Deploy a release of schema version ${CODE_SCHEMA_VERSION + 1} or newer, ` +
        'or restore the backup taken before the upgrade (docs/data.md, "Upgrading")',
    );
  });

  it('sees a key revoked by another process on a later lookup', async () => {
    const config = await engine.fresh();
    const [server, cli] = [await open(config), await open(config)];
    const user = await server.createUser('ann', at);
    const { digest, hint } = generateApiKey();
    const key = await cli.createKey(user.id, digest, hint, at);
    await eventually(async () => expect(await server.findKeyByDigest(digest)).toMatchObject({ id: key.id, revokedAt: null }), engine.propagationMs);
    expect(await server.findKeyByDigest(digest)).toMatchObject({ revokedAt: null });
    await cli.revokeKey(key.id, at);
    await eventually(async () => expect((await server.findKeyByDigest(digest))?.revokedAt).toBe(at), engine.propagationMs);
  });

  it("sees items added by another process in a later request's page", async () => {
    const config = await engine.fresh();
    const [server, other] = [await open(config), await open(config)];
    const user = await server.createUser('ann', at);
    const one = await server.createItem(user.id, 'one', at);
    expect(await server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toHaveLength(1);
    const two = await other.createItem(user.id, 'two', '2026-01-02T00:00:00.000Z');
    await eventually(async () => {
      // A request looks its key up first; that lookup also asks whether anything changed.
      await server.findKeyByDigest(generateApiKey().digest);
      // Each item as createItem gave it, whatever the store calls its fields.
      expect(await server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toEqual([one, two]);
    }, engine.propagationMs);
  });

  it('keeps a cached page intact when a caller changes the array it got', async () => {
    const store = await open(await engine.fresh());
    const user = await store.createUser('ann', at);
    await store.createItem(user.id, 'one', at);
    (await store.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).pop();
    expect(await store.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toHaveLength(1);
  });

  it('pages in (createdAt, id) order both ways, continuing strictly after a position, timestamps as RFC 3339 with milliseconds', async () => {
    const store = await open(await engine.fresh());
    const [ann, bob] = [await store.createUser('ann', at), await store.createUser('bob', at)];
    const times = ['2026-01-03T10:00:00.123Z', '2026-01-01T00:00:00.000Z', '2026-01-02T23:59:59.999Z', '2026-01-02T23:59:59.999Z'];
    const items = [];
    for (const [index, time] of times.entries()) items.push(await store.createItem(ann.id, `t${index}`, time));
    const order = [...items].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
    expect(await store.listItems('own', { userId: ann.id, sort: 'asc', limit: 10 })).toEqual(order);
    expect(await store.listItems('own', { userId: ann.id, sort: 'desc', limit: 10 })).toEqual([...order].reverse());
    const second = order[1]!;
    expect(await store.listItems('own', { userId: ann.id, sort: 'asc', limit: 2, after: { createdAt: second.createdAt, id: second.id } })).toEqual(
      order.slice(2, 4),
    );
    expect(await store.listItems('own', { userId: ann.id, sort: 'desc', limit: 5, after: { createdAt: second.createdAt, id: second.id } })).toEqual([order[0]]);
    await store.shareItem(items[0]!.id, bob.id, at);
    await store.shareItem(items[0]!.id, bob.id, at);
    expect(await store.listItems('shared', { userId: bob.id, sort: 'asc', limit: 10 })).toEqual([items[0]]);
    expect(await store.listItems('shared', { userId: ann.id, sort: 'asc', limit: 10 })).toEqual([]);
  });

  it('does not share an item with its own owner, nor an item that does not exist', async () => {
    const store = await open(await engine.fresh());
    const user = await store.createUser('ann', at);
    const item = await store.createItem(user.id, 'one', at);
    await expect(store.shareItem(item.id, user.id, at)).rejects.toThrow(/owner/);
    await expect(store.shareItem('itm_0000000000000000', user.id, at)).rejects.toThrow(/no item/);
  });

  it('finds one item only for its owner and the users it is shared with', async () => {
    const store = await open(await engine.fresh());
    const [ann, bob, eve] = [await store.createUser('ann', at), await store.createUser('bob', at), await store.createUser('eve', at)];
    const item = await store.createItem(ann.id, 'one', at);
    await store.shareItem(item.id, bob.id, at);
    expect(await findVisibleItem(store, item.id, ann.id)).toEqual(item);
    expect(await findVisibleItem(store, item.id, bob.id)).toEqual(item);
    expect(await findVisibleItem(store, item.id, eve.id)).toBeUndefined();
    expect(await findVisibleItem(store, 'itm_0000000000000000', ann.id)).toBeUndefined();
  });

  it('lists, touches and revokes keys; a second revocation reports false', async () => {
    const store = await open(await engine.fresh());
    const user = await store.createUser('ann', at);
    expect(await store.countUsers()).toBe(1);
    const first = await store.createKey(user.id, generateApiKey().digest, 'tka_…aaaa', at);
    const second = await store.createKey(user.id, generateApiKey().digest, 'tka_…bbbb', '2026-01-01T00:00:01.000Z');
    await store.touchKey(first.id, '2026-01-01T00:05:00.000Z');
    expect(await store.revokeKey(second.id, '2026-01-01T00:06:00.000Z')).toBe(true);
    expect(await store.revokeKey(second.id, '2026-01-01T00:07:00.000Z')).toBe(false);
    expect(await store.revokeKey('key_0000000000000000', at)).toBe(false);
    expect(await store.listKeys(user.id)).toEqual([
      { ...first, lastUsedAt: '2026-01-01T00:05:00.000Z' },
      { ...second, revokedAt: '2026-01-01T00:06:00.000Z' },
    ]);
    expect(await store.findUserByName('nobody')).toBeUndefined();
  });

  it('stores the digest of a key, never the key', async () => {
    const config = await engine.fresh();
    const store = await open(config);
    const user = await store.createUser('ann', at);
    const { key, digest, hint } = generateApiKey();
    await store.createKey(user.id, digest, hint, at);
    const rows = JSON.stringify(await engine.keyRows(config));
    expect(rows).not.toContain(key);
    expect(rows).toContain(hint);
  });

  it('leases a key quota shared by every store on the database, never more than the limit in a window', async () => {
    const config = await engine.fresh();
    const [one, two] = [await open(config), await open(config)];
    const user = await one.createUser('ann', at);
    const key = await one.createKey(user.id, generateApiKey().digest, 'tka_…aaaa', at);
    const request = await expectOneWindowShared([one, two], (store, asked) => store.leaseQuota(key.id, asked));
    // Another key has its own window; a new window starts from nothing.
    const other = await one.createKey(user.id, generateApiKey().digest, 'tka_…bbbb', at);
    expect((await two.leaseQuota(other.id, request)).granted).toBe(4);
    const tiny = { limit: 3, windowMs: 200, want: 3 };
    const spent = await one.leaseQuota(key.id, tiny);
    await new Promise((resolve) => setTimeout(resolve, spent.resetMs + 20));
    expect((await two.leaseQuota(key.id, tiny)).granted).toBe(3);
  });

  it('leases a budget shared by every store on the database by any name, never more than the limit in a window, and prunes ended windows', async () => {
    const config = await engine.fresh();
    const [one, two] = [await open(config), await open(config)];
    const request = await expectOneWindowShared([one, two], (store, asked) => store.leaseBudget('failed-authentication:203.0.113.7', asked));
    // Another name has its own window; a new window starts from nothing.
    expect((await two.leaseBudget('failed-authentication:2001:db8::/64', request)).granted).toBe(4);
    const tiny = { limit: 3, windowMs: 1_000, want: 3 };
    // Windows are aligned to the database's clock: a lease near the end of one starts again at the next, so that the
    // lease below falls in the same window (a 200 ms window once ended between the two on a loaded machine).
    let spent = await one.leaseBudget('failed-session:203.0.113.7', tiny);
    if (spent.resetMs < 500) {
      await new Promise((resolve) => setTimeout(resolve, spent.resetMs + 20));
      spent = await one.leaseBudget('failed-session:203.0.113.7', tiny);
    }
    expect((await two.leaseBudget('failed-session:203.0.113.7', tiny)).granted).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, spent.resetMs + 20));
    expect((await two.leaseBudget('failed-session:203.0.113.7', tiny)).granted).toBe(3);
    // Nothing of a window that has not ended is pruned; every window ends within its length.
    expect(await one.deleteBudgetsBefore(Date.now() - 1_000)).toBe(0);
    expect(await one.deleteBudgetsBefore(Date.now() + request.windowMs + 1_000)).toBe(3);
  });
  it('takes attempts per key, shared by every store on the database: free ones, then a doubling backoff; a quiet count is forgotten', async () => {
    const config = await engine.fresh();
    const [one, two] = [await open(config), await open(config)];
    const rule = { free: 3, backoffMs: 1_000, maxBackoffMs: 3_000, forgetMs: 10_000 };
    const taken = [];
    for (const [store, atMs] of [
      [one, 1_000],
      [two, 1_100],
      [one, 1_200],
    ] as const)
      taken.push(await store.takeAttempt('account:x', atMs, rule));
    expect(taken).toEqual([
      { startMs: 1_000, attempts: 1, lastMs: 1_000 },
      { startMs: 1_000, attempts: 2, lastMs: 1_100 },
      { startMs: 1_000, attempts: 3, lastMs: 1_200 },
    ]);
    // Past the free attempts: 1 s after the latest, then 2 s, then at most 3 s. A refused attempt changes nothing.
    expect(await two.takeAttempt('account:x', 2_199, rule)).toBeUndefined();
    expect(await two.findAttempts('account:x')).toEqual({ startMs: 1_000, attempts: 3, lastMs: 1_200 });
    expect(nextAttemptMs(await two.findAttempts('account:x'), rule, 2_199)).toBe(2_200);
    expect(await one.takeAttempt('account:x', 2_200, rule)).toEqual({ startMs: 1_000, attempts: 4, lastMs: 2_200 });
    expect(await one.takeAttempt('account:x', 4_199, rule)).toBeUndefined();
    expect(await two.takeAttempt('account:x', 4_200, rule)).toMatchObject({ attempts: 5, lastMs: 4_200 });
    expect(nextAttemptMs(await one.findAttempts('account:x'), rule, 4_300)).toBe(7_200);
    expect(await two.takeAttempt('account:x', 7_200, rule)).toMatchObject({ attempts: 6, lastMs: 7_200 });
    // A released attempt (one that signed in) is given back.
    await one.releaseAttempt('account:x');
    expect(await two.findAttempts('account:x')).toMatchObject({ attempts: 5 });
    expect(await two.findAttempts('account:y')).toBeUndefined();
    // 10 s after the latest attempt the count is forgotten: the next one starts it again.
    expect(await two.takeAttempt('account:x', 17_200, rule)).toEqual({ startMs: 17_200, attempts: 1, lastMs: 17_200 });
    await one.takeAttempt('client:z', 5_000, rule);
    await one.takeAttempt('sign-up:z', 5_000, rule);
    await one.clearAttempts('account:x');
    expect(await two.findAttempts('account:x')).toBeUndefined();
    // Only the scope named: another scope's counts may be forgotten later.
    expect(await two.deleteAttemptsBefore(6_000, 'client:')).toBe(1);
    expect(await one.findAttempts('client:z')).toBeUndefined();
    expect(await one.findAttempts('sign-up:z')).toMatchObject({ attempts: 1 });
  });

  it('counts attempts sent at once from two stores exactly: each is counted before another is let through', async () => {
    const config = await engine.fresh();
    const [one, two] = [await open(config), await open(config)];
    const rule = { free: 10, backoffMs: 60_000, maxBackoffMs: 900_000, forgetMs: 900_000 };
    const taken = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? one : two).takeAttempt('account:x', 1_000, rule)));
    expect(taken.filter((count) => count !== undefined)).toHaveLength(10);
    expect(await one.findAttempts('account:x')).toMatchObject({ attempts: 10 });
  });

  it('keeps named, expiring keys with an audit trail: created, first used (once), revoked by its owner only', async () => {
    const store = await open(await engine.fresh());
    const [ann, bob] = [await store.createUser('ann', at, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'), await store.createUser('bob', at)];
    expect(await store.findUserCredential('ann')).toEqual({ user: ann, passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA', credentialVersion: 0 });
    expect(await store.findUserCredential('bob')).toEqual({ user: bob, passwordHash: null, credentialVersion: 0 });
    expect(await store.setPasswordHash(bob.id, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdDI$aGFzaDI')).toBe(true);
    expect(await store.findUserCredential('bob')).toEqual({ user: bob, passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdDI$aGFzaDI', credentialVersion: 0 });
    // With a version, only while it is the user's (a rehash never undoes a password change).
    expect(await store.setPasswordHash(bob.id, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdDM$aGFzaDM', 1)).toBe(false);
    expect(await store.findUserCredential('nobody')).toBeUndefined();
    const { digest } = generateApiKey();
    const key = await store.createKey(ann.id, digest, 'tka_…aaaa', at, { name: 'deploy', expiresAt: '2026-02-01T00:00:00.000Z', source: 'web' });
    expect(key).toMatchObject({ name: 'deploy', expiresAt: '2026-02-01T00:00:00.000Z', rolledAt: null, replacedBy: null });
    expect(await store.findKeyByDigest(digest)).toMatchObject({ id: key.id, expiresAt: '2026-02-01T00:00:00.000Z', rolledAt: null });
    expect(await store.findKey(ann.id, key.id)).toEqual(key);
    expect(await store.findKey(bob.id, key.id)).toBeUndefined();
    await store.touchKey(key.id, '2026-01-01T00:01:00.000Z');
    await store.touchKey(key.id, '2026-01-01T00:02:00.000Z');
    expect(await store.revokeKey(key.id, '2026-01-01T00:03:00.000Z', { userId: bob.id, source: 'web' })).toBe(false);
    expect(await store.revokeKey(key.id, '2026-01-01T00:03:00.000Z', { userId: ann.id, source: 'web' })).toBe(true);
    const events = await store.listKeyEvents(ann.id, { limit: 10 });
    expect(events.map((event) => [event.type, event.source, event.at, event.keyName])).toEqual([
      ['revoked', 'web', '2026-01-01T00:03:00.000Z', 'deploy'],
      ['first_used', 'api', '2026-01-01T00:01:00.000Z', 'deploy'],
      ['created', 'web', at, 'deploy'],
    ]);
    const [first, second] = events;
    expect(await store.listKeyEvents(ann.id, { limit: 10, before: { at: first!.at, id: first!.id } })).toEqual(events.slice(1));
    expect(await store.listKeyEvents(ann.id, { limit: 1, before: { at: second!.at, id: second!.id } })).toEqual(events.slice(2));
    expect(await store.listKeyEvents(bob.id, { limit: 10 })).toEqual([]);
  });

  it('rolls a key: a new key of the same name, the old one marked and expiring no later than its own expiry; a second roll is refused', async () => {
    const store = await open(await engine.fresh());
    const ann = await store.createUser('ann', at);
    const old = await store.createKey(ann.id, generateApiKey().digest, 'tka_…aaaa', at, { name: 'ci', expiresAt: '2026-03-01T00:00:00.000Z', source: 'web' });
    const next = generateApiKey();
    const roll = {
      userId: ann.id,
      keyId: old.id,
      at: '2026-01-02T00:00:00.000Z',
      previousExpiresAt: '2026-01-03T00:00:00.000Z',
      next: { digest: next.digest, hint: next.hint, expiresAt: '2026-04-01T00:00:00.000Z' },
      source: 'web' as const,
    };
    const rolled = await store.rollKey(roll);
    expect(rolled?.previous).toMatchObject({ id: old.id, rolledAt: roll.at, replacedBy: rolled?.next.id, expiresAt: '2026-01-03T00:00:00.000Z' });
    expect(rolled?.next).toMatchObject({ name: 'ci', expiresAt: '2026-04-01T00:00:00.000Z', hint: next.hint });
    expect(await store.findKey(ann.id, old.id)).toEqual(rolled?.previous);
    expect(await store.findKeyByDigest(next.digest)).toMatchObject({ id: rolled?.next.id, rolledAt: null });
    expect(await store.rollKey({ ...roll, next: { ...roll.next, digest: generateApiKey().digest } })).toBeUndefined();
    const types = (await store.listKeyEvents(ann.id, { limit: 10 })).map((event) => `${event.keyId === old.id ? 'old' : 'new'} ${event.type}`);
    expect(types.sort()).toEqual(['new created', 'old created', 'old rolled']);
    // An overlap longer than the old key's life is cut to its expiry.
    const short = await store.createKey(ann.id, generateApiKey().digest, 'tka_…cccc', at, { expiresAt: '2026-01-02T12:00:00.000Z' });
    const cut = await store.rollKey({ ...roll, keyId: short.id, next: { ...roll.next, digest: generateApiKey().digest } });
    expect(cut?.previous.expiresAt).toBe('2026-01-02T12:00:00.000Z');
  });

  it('counts active keys and records each expiry once, at the time the key expired', async () => {
    const store = await open(await engine.fresh());
    const ann = await store.createUser('ann', at);
    const expiring = await store.createKey(ann.id, generateApiKey().digest, 'tka_…aaaa', at, { expiresAt: '2026-01-05T00:00:00.000Z' });
    await store.createKey(ann.id, generateApiKey().digest, 'tka_…bbbb', '2026-01-01T00:00:01.000Z');
    const revoked = await store.createKey(ann.id, generateApiKey().digest, 'tka_…cccc', '2026-01-01T00:00:02.000Z');
    await store.revokeKey(revoked.id, '2026-01-01T00:00:03.000Z');
    expect(await store.countActiveKeys(ann.id, '2026-01-04T00:00:00.000Z')).toBe(2);
    expect(await store.countActiveKeys(ann.id, '2026-01-05T00:00:00.000Z')).toBe(1);
    await store.recordExpiries(ann.id, '2026-01-04T00:00:00.000Z');
    await store.recordExpiries(ann.id, '2026-01-06T00:00:00.000Z');
    await store.recordExpiries(ann.id, '2026-01-07T00:00:00.000Z');
    const expired = (await store.listKeyEvents(ann.id, { limit: 20 })).filter((event) => event.type === 'expired');
    expect(expired.map((event) => [event.keyId, event.at, event.source])).toEqual([[expiring.id, '2026-01-05T00:00:00.000Z', 'system']]);
  });

  it('pages a key list: the keys active at its moment first, then the others, each group newest first; removed keys left out', async () => {
    const store = await open(await engine.fresh());
    const ann = await store.createUser('ann', at);
    const bob = await store.createUser('bob', at);
    const make = (second: number, options: { expiresAt?: string } = {}) =>
      store.createKey(ann.id, generateApiKey().digest, 'tka_…aaaa', `2026-01-01T00:00:0${second}.000Z`, options);
    const expiring = await make(0, { expiresAt: '2026-01-05T00:00:00.000Z' });
    const a = await make(1);
    const revoked = await make(2);
    const b = await make(3);
    const removed = await make(4);
    // Two keys made in the same millisecond: the id breaks the tie.
    const [c, d] = [await make(5), await make(5)].sort((x, y) => (x.id < y.id ? 1 : -1)) as [KeySummary, KeySummary];
    await store.createKey(bob.id, generateApiKey().digest, 'tka_…bbbb', at);
    await store.revokeKey(revoked.id, '2026-01-02T00:00:00.000Z');
    await store.revokeKey(removed.id, '2026-01-02T00:00:00.000Z');
    expect(await store.removeKey(ann.id, a.id, '2026-01-06T00:00:00.000Z')).toBe('active');
    expect(await store.removeKey(bob.id, removed.id, '2026-01-06T00:00:00.000Z')).toBeUndefined();
    expect(await store.removeKey(ann.id, removed.id, '2026-01-06T00:00:00.000Z')).toBe('removed');
    expect(await store.removeKey(ann.id, removed.id, '2026-01-06T00:00:00.000Z')).toBeUndefined();
    expect(await store.findKey(ann.id, removed.id)).toBeUndefined();
    expect((await store.listKeys(ann.id)).map((key) => key.id)).toContain(removed.id);

    const asOf = '2026-01-06T00:00:00.000Z';
    const order = [c, d, b, a, revoked, expiring].map((key) => key.id);
    const whole = await store.listKeyPage(ann.id, { asOf, limit: 100 });
    expect(whole.map((key) => key.id)).toEqual(order);
    expect(whole[0]).toEqual(c);
    // Page by page, two at a time, each after the last key of the one before.
    const paged: string[] = [];
    let after: KeyPosition | undefined;
    for (let page = 0; page < 5; page++) {
      const rows = await store.listKeyPage(ann.id, { asOf, limit: 2, ...(after && { after }) });
      paged.push(...rows.map((key) => key.id));
      const last = rows.at(-1);
      if (!last) break;
      after = { active: last.revokedAt === null && (last.expiresAt === null || last.expiresAt > asOf), createdAt: last.createdAt, id: last.id };
    }
    expect(paged).toEqual(order);
    // Before its expiry, the expiring key is active: the oldest of the active ones.
    expect((await store.listKeyPage(ann.id, { asOf: '2026-01-04T00:00:00.000Z', limit: 100 })).map((key) => key.id)).toEqual([
      c.id,
      d.id,
      b.id,
      a.id,
      expiring.id,
      revoked.id,
    ]);
  });

  it('makes no more active keys than maxActive, however many creates arrive at once from two stores on the database', async () => {
    const config = await engine.fresh();
    const [one, two] = [await open(config), await open(config)];
    const ann = await one.createUser('ann', at);
    await one.createKey(ann.id, generateApiKey().digest, 'tka_…aaaa', at, { expiresAt: '2026-01-01T00:00:00.500Z' });
    const outcomes = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        (index % 2 === 0 ? one : two)
          .createKey(ann.id, generateApiKey().digest, 'tka_…bbbb', '2026-01-01T00:00:01.000Z', { maxActive: 20, source: 'web' })
          .then(
            () => 'made',
            (error: unknown) => (error instanceof ActiveKeyLimitReached ? `refused at ${error.active}` : String(error)),
          ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'made')).toHaveLength(20);
    expect(outcomes.filter((outcome) => outcome !== 'made')).toEqual(Array(5).fill('refused at 20'));
    expect(await one.countActiveKeys(ann.id, '2026-01-01T00:00:01.000Z')).toBe(20);
  });

  it('keeps sessions: found by digest with their user, touched forward only, deleted one by one or when ended', async () => {
    const store = await open(await engine.fresh());
    const ann = await store.createUser('ann', at);
    const digest = generateApiKey().digest;
    const session = await store.createSession(ann.id, digest, at, '2026-01-08T00:00:00.000Z');
    expect(session).toEqual({ id: session.id, user: ann, createdAt: at, lastSeenAt: at, expiresAt: '2026-01-08T00:00:00.000Z' });
    expect(await store.findSessionByDigest(digest)).toEqual(session);
    await store.touchSession(session.id, '2026-01-02T00:00:00.000Z');
    await store.touchSession(session.id, '2026-01-01T12:00:00.000Z');
    // The cache keeps what a touch wrote; the database has it too.
    expect((await store.findSessionByDigest(digest))?.lastSeenAt).toBe('2026-01-02T00:00:00.000Z');
    const idle = await store.createSession(ann.id, generateApiKey().digest, at, '2026-01-08T00:00:00.000Z');
    const ended = await store.createSession(ann.id, generateApiKey().digest, at, '2026-01-02T00:00:00.000Z');
    void ended;
    expect(await store.deleteEndedSessions('2026-01-03T00:00:00.000Z', '2026-01-01T06:00:00.000Z')).toBe(2);
    expect(await store.deleteEndedSessions('2026-01-03T00:00:00.000Z', '2026-01-01T06:00:00.000Z')).toBe(0);
    expect(await store.deleteSession(idle.id)).toBe(false);
    expect(await store.deleteSession(session.id)).toBe(true);
    expect(await store.findSessionByDigest(digest)).toBeUndefined();
  });

  it("lists a user's live sessions newest first, and ends one of them or all but one, only the user's own, forgetting the cached lookups", async () => {
    const store = await open(await engine.fresh());
    const [ann, bob] = [await store.createUser('ann', at), await store.createUser('bob', at)];
    const start = (userId: string, createdAt: string, expiresAt = '2026-01-08T00:00:00.000Z') => {
      const digest = generateApiKey().digest;
      return store.createSession(userId, digest, createdAt, expiresAt).then((session) => ({ session, digest }));
    };
    const first = await start(ann.id, '2026-01-01T00:00:00.000Z');
    const second = await start(ann.id, '2026-01-01T01:00:00.000Z');
    const third = await start(ann.id, '2026-01-01T02:00:00.000Z');
    const expired = await start(ann.id, '2026-01-01T03:00:00.000Z', '2026-01-01T04:00:00.000Z');
    const idle = await start(ann.id, '2026-01-01T00:30:00.000Z');
    const bobs = await start(bob.id, '2026-01-01T02:30:00.000Z');
    await store.touchSession(first.session.id, '2026-01-01T05:00:00.000Z');
    await store.touchSession(second.session.id, '2026-01-01T05:00:00.000Z');
    await store.touchSession(third.session.id, '2026-01-01T05:00:00.000Z');
    // Every lookup cached, so a delete that did not forget them would be seen.
    for (const { digest } of [first, second, third, bobs]) expect(await store.findSessionByDigest(digest)).toBeDefined();
    const live = { at: '2026-01-01T05:00:00.000Z', idleBefore: '2026-01-01T04:30:00.000Z' };
    const listed = await store.listSessions(ann.id, { ...live, limit: 10 });
    expect(listed.map((session) => session.id)).toEqual([third.session.id, second.session.id, first.session.id]);
    expect(listed[0]).toEqual({ ...third.session, lastSeenAt: '2026-01-01T05:00:00.000Z' });
    expect((await store.listSessions(ann.id, { ...live, limit: 2 })).map((session) => session.id)).toEqual([third.session.id, second.session.id]);
    void expired;
    void idle;

    expect(await store.deleteUserSession(ann.id, bobs.session.id)).toBe(false);
    expect(await store.findSessionByDigest(bobs.digest)).toBeDefined();
    expect(await store.deleteUserSession(ann.id, second.session.id)).toBe(true);
    expect(await store.deleteUserSession(ann.id, second.session.id)).toBe(false);
    expect(await store.findSessionByDigest(second.digest)).toBeUndefined();

    // All but one: the expired and idle ones go too; another user's stay.
    expect(await store.deleteOtherSessions(ann.id, third.session.id)).toBe(3);
    expect(await store.findSessionByDigest(first.digest)).toBeUndefined();
    expect(await store.findSessionByDigest(third.digest)).toMatchObject({ id: third.session.id });
    expect(await store.findSessionByDigest(bobs.digest)).toMatchObject({ id: bobs.session.id });
    expect((await store.listSessions(ann.id, { ...live, limit: 10 })).map((session) => session.id)).toEqual([third.session.id]);
    expect(await store.deleteOtherSessions(ann.id, third.session.id)).toBe(0);
  });

  it('changes a password in one step: the version bumped, other sessions ended, this one kept, keys revoked only when asked', async () => {
    const store = await open(await engine.fresh());
    const [ann, bob] = [await store.createUser('ann', at, '$argon2id$old'), await store.createUser('bob', at)];
    const start = async (userId: string, version?: number) => {
      const digest = generateApiKey().digest;
      return { session: await store.createSession(userId, digest, at, '2026-01-08T00:00:00.000Z', version), digest };
    };
    const [here, there, bobs] = [await start(ann.id, 0), await start(ann.id), await start(bob.id)];
    const key = generateApiKey();
    await store.createKey(ann.id, key.digest, key.hint, at, { source: 'web' });
    for (const { digest } of [here, there, bobs]) expect(await store.findSessionByDigest(digest)).toBeDefined();

    expect(await store.changePassword({ userId: ann.id, passwordHash: '$argon2id$new', keepSessionId: here.session.id })).toEqual({
      credentialVersion: 1,
      sessionsEnded: 1,
      keysRevoked: 0,
    });
    expect(await store.findUserCredential('ann')).toMatchObject({ passwordHash: '$argon2id$new', credentialVersion: 1 });
    expect(await store.findSessionByDigest(here.digest)).toMatchObject({ id: here.session.id });
    expect(await store.findSessionByDigest(there.digest)).toBeUndefined();
    expect(await store.findSessionByDigest(bobs.digest)).toBeDefined();
    expect((await store.findKeyByDigest(key.digest))?.revokedAt).toBeNull();
    // A session asked for under the version a sign-in read before the change is never made.
    await expect(start(ann.id, 0)).rejects.toBeInstanceOf(CredentialChanged);
    expect(await store.listSessions(ann.id, { at, idleBefore: '2025-12-31T00:00:00.000Z', limit: 10 })).toHaveLength(1);
    // A rehash made under the old version does not put the old password back.
    expect(await store.setPasswordHash(ann.id, '$argon2id$old-again', 0)).toBe(false);

    const revoked = await store.changePassword({
      userId: ann.id,
      passwordHash: '$argon2id$newer',
      keepSessionId: here.session.id,
      revokeKeys: { at: '2026-01-01T00:00:01.000Z', source: 'web' },
    });
    expect(revoked).toEqual({ credentialVersion: 2, sessionsEnded: 0, keysRevoked: 1 });
    expect((await store.findKeyByDigest(key.digest))?.revokedAt).toBe('2026-01-01T00:00:01.000Z');
    expect((await store.listKeyEvents(ann.id, { limit: 10 })).map((event) => [event.type, event.source])).toContainEqual(['revoked', 'web']);
    expect(await store.findSessionByDigest(here.digest)).toMatchObject({ id: here.session.id });
  });

  it('never leaves a session made under the old version live, however sign-ins and a change on two instances interleave', async () => {
    const config = await engine.fresh();
    const [one, two] = [await open(config), await open(config)];
    const ann = await one.createUser('ann', at, '$argon2id$0');
    const keptDigest = generateApiKey().digest;
    const keep = await one.createSession(ann.id, keptDigest, at, '2026-01-08T00:00:00.000Z', 0);
    for (let round = 0; round < 10; round++) {
      const version = (await two.findUserCredential('ann'))?.credentialVersion ?? -1;
      // Sign-ins on one instance that read `version`, and a change on the other, all at once.
      const digests = Array.from({ length: 5 }, () => generateApiKey().digest);
      const made = await Promise.allSettled([
        ...digests.map((digest) => one.createSession(ann.id, digest, at, '2026-01-08T00:00:00.000Z', version)),
        two.changePassword({ userId: ann.id, passwordHash: `$argon2id$${round + 1}`, keepSessionId: keep.id }),
      ]);
      for (const outcome of made.slice(0, -1)) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(CredentialChanged);
      expect(made.at(-1)?.status).toBe('fulfilled');
      // Whatever was made before the change was ended by it; nothing was made after it.
      for (const store of [one, two])
        await eventually(async () => {
          for (const digest of digests) expect(await store.findSessionByDigest(digest)).toBeUndefined();
        }, engine.propagationMs);
    }
    // The session that made the changes goes on.
    expect(await two.findSessionByDigest(keptDigest)).toMatchObject({ id: keep.id });
  });

  it('sees a session ended by another process on a later lookup', async () => {
    const config = await engine.fresh();
    const [web, other] = [await open(config), await open(config)];
    const ann = await web.createUser('ann', at);
    const digest = generateApiKey().digest;
    const session = await other.createSession(ann.id, digest, at, '2026-01-08T00:00:00.000Z');
    await eventually(async () => expect(await web.findSessionByDigest(digest)).toMatchObject({ id: session.id }), engine.propagationMs);
    await other.deleteSession(session.id);
    await eventually(async () => expect(await web.findSessionByDigest(digest)).toBeUndefined(), engine.propagationMs);
  });
});

describe('the PostgreSQL store only', () => {
  it('applies each migration once when several instances start at the same moment', async () => {
    const config = postgres.fresh();
    const resolved = await config;
    const stores = await Promise.all(Array.from({ length: 6 }, () => openStore(resolved)));
    await Promise.all(stores.map((store) => store.close()));
    const versions = await withClient(resolved.databaseUrl!, async (client) =>
      (await client.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map((row) => row.version),
    );
    expect(versions).toEqual(POSTGRES_MIGRATIONS.map((_, index) => index + 1));
  });

  it('notifies a revocation made in plain SQL by an operator, but not a last-use touch', async () => {
    const config = await postgres.fresh();
    const store = await openStore(config);
    const user = await store.createUser('ann', at);
    const { digest, hint } = generateApiKey();
    const key = await store.createKey(user.id, digest, hint, at);
    const heard = await withClient(config.databaseUrl!, async (client) => {
      const channels: string[] = [];
      client.on('notification', (message) => channels.push(message.payload ?? ''));
      await client.query('LISTEN store_changes');
      await store.touchKey(key.id, '2026-01-01T00:05:00.000Z');
      await client.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return channels;
    });
    // The key's digest, so the other instances forget that key alone (migration 10).
    expect(heard).toEqual([`api_keys:${digest.toString('hex')}`]);
    await eventually(async () => expect((await store.findKeyByDigest(digest))?.revokedAt).not.toBeNull(), 1_000);
    await store.close();
  });

  it('forgets only the key another instance wrote: that one is looked up again, the others stay in memory', async () => {
    // Only the revocation's notification may make it forget: not the backstop's tick, nor a listener dropped because a
    // busy machine answered its ping after the default 2 s (each forgets every key).
    const config = { ...(await postgres.fresh()), cacheTtlMs: 600_000, postgres: { connectTimeoutMs: 30_000 } };
    const two = await openStore(config);
    const user = await two.createUser('ann', at);
    const [kept, revoked] = [generateApiKey(), generateApiKey()];
    await two.createKey(user.id, kept.digest, kept.hint, at);
    const doomed = await two.createKey(user.id, revoked.digest, revoked.hint, at);
    // Opened after the keys were made, so it never hears their creation: on a busy machine that notification came after
    // the keys were in its memory and made it forget `kept` (this test failed so, in CI, twice).
    const one = await openStore(config);
    await eventually(async () => {
      for (const key of [kept, revoked]) expect(await one.findKeyByDigest(key.digest)).toBeDefined();
      const before = one.stats?.().keyCache;
      for (const key of [kept, revoked]) await one.findKeyByDigest(key.digest);
      expect(one.stats?.().keyCache?.hits).toBe((before?.hits ?? 0) + 2);
    }, 2_000);
    await two.revokeKey(doomed.id, at);
    await eventually(async () => expect((await one.findKeyByDigest(revoked.digest))?.revokedAt).not.toBeNull(), 1_000);
    const before = one.stats?.().keyCache;
    expect((await one.findKeyByDigest(kept.digest))?.revokedAt).toBeNull();
    expect(one.stats?.().keyCache).toEqual({ hits: (before?.hits ?? 0) + 1, misses: before?.misses ?? 0 });
    await Promise.all([one.close(), two.close()]);
  });

  it('serves nothing from memory while its listener connection is down, and caches again once it listens', async () => {
    const config = await postgres.fresh();
    const store = await openStore(config);
    const user = await store.createUser('ann', at);
    const { digest, hint } = generateApiKey();
    const key = await store.createKey(user.id, digest, hint, at);
    expect(await store.findKeyByDigest(digest)).toMatchObject({ revokedAt: null });
    // Cut the listener and, in the same breath, revoke without a notification reaching anyone.
    await withClient(config.databaseUrl!, async (client) => {
      await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bearer-list-api listener' AND datname = current_database()",
      );
      await client.query('ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed');
      await client.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
      await client.query('ALTER TABLE api_keys ENABLE TRIGGER api_keys_changed');
    });
    await eventually(async () => expect((await store.findKeyByDigest(digest))?.revokedAt).not.toBeNull(), 2_000);
    await store.close();
  });
});

describe('the SQLite store only', () => {
  it('records, with each migration it applies, the oldest code that runs on its result: a later migration that fails leaves a true record', async () => {
    const config = await sqlite.fresh();
    const path = config.databasePath ?? '';
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // A database two migrations behind, whose last migration will fail: a table holds the name its first statement creates.
    const raw = new Database(path);
    for (const migration of MIGRATIONS.slice(0, -2)) raw.exec(migration);
    raw.pragma(`user_version = ${MIGRATIONS.length - 2}`);
    // The name the last migration creates, or the column it adds, taken already. A name held by an object of the
    // other kind (a table where an index is made, an index where a table is) fails even `IF NOT EXISTS`.
    const last = MIGRATIONS.at(-1) ?? '';
    const creates = /CREATE\s+(?:UNIQUE\s+)?(TABLE|INDEX)\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)/i.exec(last);
    const added = /ALTER\s+TABLE\s+(\w+)\s+ADD\s+(?:COLUMN\s+)?(\w+)/i.exec(last);
    if (creates?.[1]?.toUpperCase() === 'TABLE' && creates[2])
      raw.exec(`CREATE TABLE holder_of_a_taken_name (x); CREATE INDEX ${creates[3]} ON holder_of_a_taken_name (x)`);
    else if (creates) raw.exec(`CREATE TABLE ${creates[3]} (x)`);
    else if (added) raw.exec(`ALTER TABLE ${added[1]} ADD COLUMN ${added[2]} TEXT`);
    else
      throw new Error(
        `the last migration (${MIGRATIONS.length}) creates no table or index and adds no column, the ways this test makes it fail: ` +
          'give it another way to make that migration fail (test/store/store.test.ts)',
      );
    raw.close();

    await expect(openStore(config)).rejects.toThrow(/already|duplicate/);
    const after = new Database(path);
    expect(after.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length - 1);
    expect(after.prepare(`SELECT oldest_code FROM ${COMPATIBILITY_TABLE}`).pluck().all()).toEqual([oldestCodeFor(MIGRATIONS.length - 1)]);
    after.close();
  });
});

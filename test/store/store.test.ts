import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../../src/config/env.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres-migrations.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';

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
  keyRows(config: StoreConfig): Promise<unknown[]>;
  /** How long another store's write may take to reach this one's cache: SQLite checks on every lookup, PostgreSQL hears a NOTIFY. */
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
  async keyRows(config) {
    const raw = new Database(config.databasePath);
    const rows = raw.prepare('SELECT * FROM api_keys').all();
    raw.close();
    return rows;
  },
  propagationMs: 0,
};

const postgres: Engine = {
  name: 'PostgreSQL',
  fresh: async () => ({ databasePath: ':unused:', databaseUrl: await freshDatabase('store') }),
  schemaVersion: (config) =>
    withClient(config.databaseUrl!, async (client) => (await client.query('SELECT max(version)::int AS v FROM schema_migrations')).rows[0].v),
  setSchemaVersion: (config, version) =>
    withClient(config.databaseUrl!, async (client) => void (await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]))),
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

  it('refuses a database from newer code', async () => {
    const config = await engine.fresh();
    await (await openStore(config)).close();
    await engine.setSchemaVersion(config, MIGRATIONS.length + 1);
    await expect(openStore(config)).rejects.toThrow(/newer than this code/);
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
    await server.createItem(user.id, 'one', at);
    expect(await server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toHaveLength(1);
    await other.createItem(user.id, 'two', '2026-01-02T00:00:00.000Z');
    await eventually(async () => {
      // A request looks its key up first; that lookup also asks whether anything changed.
      await server.findKeyByDigest(generateApiKey().digest);
      expect((await server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).map((item) => item.title)).toEqual(['one', 'two']);
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
    expect(await store.findVisibleItem(item.id, ann.id)).toEqual(item);
    expect(await store.findVisibleItem(item.id, bob.id)).toEqual(item);
    expect(await store.findVisibleItem(item.id, eve.id)).toBeUndefined();
    expect(await store.findVisibleItem('itm_0000000000000000', ann.id)).toBeUndefined();
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
    const request = { limit: 10, windowMs: 3_600_000, want: 4 };
    const grants = [];
    for (const store of [one, two, one, two]) grants.push(await store.leaseQuota(key.id, request));
    expect(grants.map((lease) => [lease.granted, lease.used])).toEqual([
      [4, 4],
      [4, 8],
      [2, 10],
      [0, 10],
    ]);
    for (const lease of grants) expect(lease.resetMs).toBeGreaterThan(0);
    for (const lease of grants) expect(lease.resetMs).toBeLessThanOrEqual(request.windowMs);
    // Another key has its own window; a new window starts from nothing.
    const other = await one.createKey(user.id, generateApiKey().digest, 'tka_…bbbb', at);
    expect((await two.leaseQuota(other.id, request)).granted).toBe(4);
    const tiny = { limit: 3, windowMs: 200, want: 3 };
    const spent = await one.leaseQuota(key.id, tiny);
    await new Promise((resolve) => setTimeout(resolve, spent.resetMs + 20));
    expect((await two.leaseQuota(key.id, tiny)).granted).toBe(3);
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
    expect(heard).toEqual(['api_keys']);
    await eventually(async () => expect((await store.findKeyByDigest(digest))?.revokedAt).not.toBeNull(), 1_000);
    await store.close();
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

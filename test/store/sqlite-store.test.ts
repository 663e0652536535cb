import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';

const scratch = mkdtempSync(join(tmpdir(), 'store-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(scratch, `db-${++files}`, 'api.sqlite');
const at = '2026-01-01T00:00:00.000Z';

describe('the SQLite store', () => {
  it('creates the file and applies migrations once; reopening keeps data and the cursor secret', () => {
    const file = newFile();
    const first = openSqliteStore(file);
    const user = first.createUser('ann', at);
    const secret = first.secret('cursor');
    first.close();
    const second = openSqliteStore(file);
    expect(second.findUserByName('ann')).toEqual(user);
    expect(second.secret('cursor')).toEqual(secret);
    second.close();
    const raw = new Database(file);
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    raw.close();
  });

  it('refuses a database from newer code', () => {
    const file = newFile();
    openSqliteStore(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openSqliteStore(file)).toThrow(/newer than this code/);
  });

  it('sees a key revoked by another process on the next lookup', () => {
    const file = newFile();
    const server = openSqliteStore(file);
    const cli = openSqliteStore(file);
    const user = server.createUser('ann', at);
    const { digest, hint } = generateApiKey();
    const key = cli.createKey(user.id, digest, hint, at);
    expect(server.findKeyByDigest(digest)).toMatchObject({ id: key.id, revokedAt: null });
    expect(server.findKeyByDigest(digest)).toMatchObject({ revokedAt: null });
    cli.revokeKey(key.id, at);
    expect(server.findKeyByDigest(digest)?.revokedAt).toBe(at);
    server.close();
    cli.close();
  });

  it('sees items added by another process in the next request\'s page', () => {
    const file = newFile();
    const server = openSqliteStore(file);
    const other = openSqliteStore(file);
    const user = server.createUser('ann', at);
    server.createItem(user.id, 'one', at);
    expect(server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toHaveLength(1);
    other.createItem(user.id, 'two', '2026-01-02T00:00:00.000Z');
    // A request looks its key up first; that lookup also reads the database's version.
    server.findKeyByDigest(generateApiKey().digest);
    expect(server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 }).map((item) => item.title)).toEqual(['one', 'two']);
    server.close();
    other.close();
  });

  it('keeps a cached page intact when a caller changes the array it got', () => {
    const store = openSqliteStore(':memory:');
    const user = store.createUser('ann', at);
    store.createItem(user.id, 'one', at);
    store.listItems('own', { userId: user.id, sort: 'asc', limit: 10 }).pop();
    expect(store.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toHaveLength(1);
    store.close();
  });

  it('does not share an item with its own owner', () => {
    const store = openSqliteStore(':memory:');
    const user = store.createUser('ann', at);
    const item = store.createItem(user.id, 'one', at);
    expect(() => store.shareItem(item.id, user.id, at)).toThrow(/owner/);
    store.close();
  });

  it('stores the digest of a key, never the key', () => {
    const file = newFile();
    const store = openSqliteStore(file);
    const user = store.createUser('ann', at);
    const { key, digest, hint } = generateApiKey();
    store.createKey(user.id, digest, hint, at);
    store.close();
    const raw = new Database(file);
    const rows = raw.prepare('SELECT * FROM api_keys').all();
    raw.close();
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(JSON.stringify(rows)).toContain(hint);
  });
});

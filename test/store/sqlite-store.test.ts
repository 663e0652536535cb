import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';

const scratch = mkdtempSync(join(tmpdir(), 'store-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(scratch, `db-${++files}`, 'api.sqlite');
const at = '2026-01-01T00:00:00.000Z';
const open = (databasePath: string) => openStore({ databasePath });

describe('the SQLite store, opened as the server opens it', () => {
  it('creates the file and applies migrations once; reopening keeps data and the cursor secret', async () => {
    const file = newFile();
    const first = await open(file);
    const user = await first.createUser('ann', at);
    const secret = await first.secret('cursor');
    await first.close();
    const second = await open(file);
    expect(await second.findUserByName('ann')).toEqual(user);
    expect(await second.secret('cursor')).toEqual(secret);
    await second.close();
    const raw = new Database(file);
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    raw.close();
  });

  it('refuses a database from newer code', async () => {
    const file = newFile();
    await (await open(file)).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    await expect(open(file)).rejects.toThrow(/newer than this code/);
  });

  it('sees a key revoked by another process on the next lookup', async () => {
    const file = newFile();
    const server = await open(file);
    const cli = await open(file);
    const user = await server.createUser('ann', at);
    const { digest, hint } = generateApiKey();
    const key = await cli.createKey(user.id, digest, hint, at);
    expect(await server.findKeyByDigest(digest)).toMatchObject({ id: key.id, revokedAt: null });
    expect(await server.findKeyByDigest(digest)).toMatchObject({ revokedAt: null });
    await cli.revokeKey(key.id, at);
    expect((await server.findKeyByDigest(digest))?.revokedAt).toBe(at);
    await server.close();
    await cli.close();
  });

  it("sees items added by another process in the next request's page", async () => {
    const file = newFile();
    const server = await open(file);
    const other = await open(file);
    const user = await server.createUser('ann', at);
    await server.createItem(user.id, 'one', at);
    expect(await server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toHaveLength(1);
    await other.createItem(user.id, 'two', '2026-01-02T00:00:00.000Z');
    // A request looks its key up first; that lookup also asks whether anything changed.
    await server.findKeyByDigest(generateApiKey().digest);
    expect((await server.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).map((item) => item.title)).toEqual(['one', 'two']);
    await server.close();
    await other.close();
  });

  it('keeps a cached page intact when a caller changes the array it got', async () => {
    const store = await open(':memory:');
    const user = await store.createUser('ann', at);
    await store.createItem(user.id, 'one', at);
    (await store.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).pop();
    expect(await store.listItems('own', { userId: user.id, sort: 'asc', limit: 10 })).toHaveLength(1);
    await store.close();
  });

  it('does not share an item with its own owner', async () => {
    const store = await open(':memory:');
    const user = await store.createUser('ann', at);
    const item = await store.createItem(user.id, 'one', at);
    await expect(store.shareItem(item.id, user.id, at)).rejects.toThrow(/owner/);
    await store.close();
  });

  it('finds one item only for its owner and the users it is shared with', async () => {
    const store = await open(':memory:');
    const [ann, bob, eve] = [await store.createUser('ann', at), await store.createUser('bob', at), await store.createUser('eve', at)];
    const item = await store.createItem(ann.id, 'one', at);
    await store.shareItem(item.id, bob.id, at);
    expect(await store.findVisibleItem(item.id, ann.id)).toEqual(item);
    expect(await store.findVisibleItem(item.id, bob.id)).toEqual(item);
    expect(await store.findVisibleItem(item.id, eve.id)).toBeUndefined();
    expect(await store.findVisibleItem('itm_0000000000000000', ann.id)).toBeUndefined();
    await store.close();
  });

  it('stores the digest of a key, never the key', async () => {
    const file = newFile();
    const store = await open(file);
    const user = await store.createUser('ann', at);
    const { key, digest, hint } = generateApiKey();
    await store.createKey(user.id, digest, hint, at);
    await store.close();
    const raw = new Database(file);
    const rows = raw.prepare('SELECT * FROM api_keys').all();
    raw.close();
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(JSON.stringify(rows)).toContain(hint);
  });
});

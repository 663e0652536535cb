// The revocation bound on SQLite: what another process commits is seen within SQLITE_CHANGE_CHECK_MS, and the
// change counter is not read more often than that.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { CachedStore } from '../../src/store/cached-store.js';
import { openSqliteStore, SQLITE_CHANGE_CHECK_MS } from '../../src/store/sqlite-store.js';

const scratch = mkdtempSync(join(tmpdir(), 'sqlite-changes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const at = '2026-01-01T00:00:00.000Z';

/** The server's connection (cached, on a fake clock) and another process's connection (the keys CLI), on one file. */
async function twoConnections(name: string) {
  let clock = 1_000;
  const file = join(scratch, `${name}.sqlite`);
  const server = openSqliteStore(file, { now: () => clock });
  const cached = new CachedStore(server.store, server.changes);
  const cli = openSqliteStore(file).store;
  const user = await cli.createUser('ann', at);
  const { digest, hint } = generateApiKey();
  const key = await cli.createKey(user.id, digest, hint, at);
  return {
    cached,
    cli,
    digest,
    key,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('SQLite: changes made by another process', () => {
  it(`are seen within SQLITE_CHANGE_CHECK_MS (${SQLITE_CHANGE_CHECK_MS} ms): a revoked key fails after the bound, whatever the traffic before it`, async () => {
    const { cached, cli, digest, key, advance } = await twoConnections('revoke');
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBeNull();
    await cli.revokeKey(key.id, at);
    // Inside the bound the last look at the counter stands: the key is still served from memory.
    advance(SQLITE_CHANGE_CHECK_MS / 2);
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBeNull();
    advance(SQLITE_CHANGE_CHECK_MS / 2);
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBe(at);
  });

  it('are seen at once by the first lookup after a quiet spell longer than the bound', async () => {
    const { cached, cli, digest, key, advance } = await twoConnections('quiet');
    await cached.findKeyByDigest(digest);
    advance(SQLITE_CHANGE_CHECK_MS);
    await cli.revokeKey(key.id, at);
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBe(at);
  });

  it("and this process's own writes are seen on the very next lookup", async () => {
    const { cached, digest, key } = await twoConnections('own');
    await cached.findKeyByDigest(digest);
    await cached.revokeKey(key.id, at);
    expect((await cached.findKeyByDigest(digest))?.revokedAt).toBe(at);
  });
});

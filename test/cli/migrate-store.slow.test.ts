/**
 * `npm run migrate:store`: a service begun on SQLite moves to PostgreSQL with everything in it. Users, keys
 * (rolled ones with their successor), events, sessions, items, shares, counters and the generated secrets are
 * copied; a server on PostgreSQL accepts the old keys and passwords. A copy that fails midway leaves the target
 * empty, so running it again works; a target that holds data is refused unless `--force`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { openStore } from '../../src/store/open-store.js';
import { CODE_SCHEMA_VERSION } from '../../src/store/schema-policy.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { runCommand } from '../../tools/process/run-command.js';
import { startServer } from '../../tools/process/server.js';
import { expectAllPresent, expectCredentialsWork, makeData } from '../helpers/data-fixture.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';
import { findVisibleItem } from '../helpers/visible-item.js';

const scratch = mkdtempSync(join(tmpdir(), 'migrate-store-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const migrateStore = (args: string[]) => runCommand(tsxCommand('src/cli/migrate-store.ts', args));

describe('migrate:store from SQLite to PostgreSQL', () => {
  it('copies every table; keys, passwords, rolled keys and secrets keep working; re-runs after a failure; refuses a target with data', async () => {
    const file = join(scratch, 'api.sqlite');
    const source = await openStore({ databasePath: file });
    const made = await makeData(source, 5);
    const [first] = made.keys;
    if (!first) throw new Error('no key made');
    const now = Date.now();
    const next = generateApiKey();
    const rolled = await source.rollKey({
      userId: first.userId,
      keyId: first.id,
      at: new Date(now).toISOString(),
      previousExpiresAt: new Date(now + 86_400_000).toISOString(),
      next: { digest: next.digest, hint: next.hint, expiresAt: new Date(now + 30 * 86_400_000).toISOString() },
      source: 'web',
    });
    await source.leaseQuota(first.id, { limit: 100, windowMs: 60_000, want: 5 });
    await source.takeAttempt('account:somebody', now, { free: 5, backoffMs: 1_000, maxBackoffMs: 60_000, forgetMs: 3_600_000 });
    const poison = await source.createItem(first.userId, 'poison', new Date(now).toISOString());
    const cursorSecret = await source.secret('cursor');
    await source.close();

    // A copy that fails on its last rows: nothing is left behind, and the same command then succeeds.
    const target = await freshDatabase('migrate_store');
    await (await openStore({ databasePath: ':unused:', databaseUrl: target })).close();
    await withClient(target, (client) => client.query("ALTER TABLE items ADD CONSTRAINT no_poison CHECK (title <> 'poison')"));
    const failed = await migrateStore(['--from', file, '--to', target]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('no_poison');
    expect(await withClient(target, async (client) => (await client.query('SELECT count(*)::int AS n FROM users')).rows[0].n)).toBe(0);
    await withClient(target, (client) => client.query('ALTER TABLE items DROP CONSTRAINT no_poison'));
    const rerun = await migrateStore(['--from', file, '--to', target]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(/^Copied .+ into postgres:\/\/.+: .*\b6 items\b.*\b5 users\b.*\. Start the servers with DATABASE_URL set to it\.\n$/);

    const copied = await openStore({ databasePath: ':unused:', databaseUrl: target });
    try {
      await expectAllPresent(copied, made);
      expect(await findVisibleItem(copied, poison.id, first.userId)).toEqual(poison);
      expect((await copied.listKeys(first.userId)).find((key) => key.id === first.id)?.replacedBy).toBe(rolled?.next.id);
      expect(await copied.findAttempts('account:somebody')).toMatchObject({ attempts: 1 });
      expect(await copied.secret('cursor')).toEqual(cursorSecret);
    } finally {
      await copied.close();
    }
    const server = await startServer({ env: { DATABASE_URL: target } });
    try {
      await expectCredentialsWork(server, { ...made, keys: made.keys.slice(1) });
      expect((await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${first.key}` } })).status, 'the rolled key, within its overlap').toBe(
        200,
      );
      expect((await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${next.key}` } })).status, 'its successor').toBe(200);
    } finally {
      await server.stop();
    }

    const before = readFileSync(file);
    const again = await migrateStore(['--from', file, '--to', target]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^migrate:store: the PostgreSQL database holds data already \(.*\): give --force to replace it/);
    // The target from DATABASE_URL, as the docs give it: a password never goes on a command line.
    const forced = await runCommand(tsxCommand('src/cli/migrate-store.ts', ['--from', file, '--force']), { env: { DATABASE_URL: target } });
    expect(forced.code, forced.stderr).toBe(0);
    // The source is only read: the release that made it can still go back to it.
    expect(readFileSync(file).equals(before)).toBe(true);
    const bad = await migrateStore(['--from', file, '--to', 'mysql://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to must start with postgres://');
    for (const secret of ['postgres://api:s3cret-word@127.0.0.1:5432/api', 'postgres://api@127.0.0.1:5432/api?password=s3cret-word']) {
      const visible = await migrateStore(['--from', file, '--to', secret]);
      expect(visible.code).toBe(2);
      expect(visible.stderr).toMatch(/--to holds a password, which every user of this machine can read on the command line: set DATABASE_URL instead/);
      expect(visible.stderr + visible.stdout).not.toContain('s3cret-word');
    }
    const none = await runCommand(tsxCommand('src/cli/migrate-store.ts', ['--from', file]), { env: { DATABASE_URL: undefined } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the PostgreSQL database in DATABASE_URL');
  });

  it('refuses a source of another schema version before it touches either database', async () => {
    const file = join(scratch, 'older.sqlite');
    await (await openStore({ databasePath: file })).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${CODE_SCHEMA_VERSION - 1}`);
    raw.close();
    const target = await freshDatabase('migrate_store_older');
    const refused = await runCommand(tsxCommand('src/cli/migrate-store.ts', ['--from', file]), { env: { DATABASE_URL: target } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`the SQLite database is at schema version ${CODE_SCHEMA_VERSION - 1}, this code at ${CODE_SCHEMA_VERSION}`);
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(CODE_SCHEMA_VERSION - 1);
    check.close();
    const tables = await withClient(
      target,
      async (client) => (await client.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'")).rows[0].n,
    );
    expect(tables).toBe(0);
  });
});

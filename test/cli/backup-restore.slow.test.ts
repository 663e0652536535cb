/**
 * `npm run backup` while a server and another writer write, then `npm run restore` into an empty database, on
 * SQLite and on PostgreSQL: every user, key, session, event and item made before the backup began is in the
 * restored copy, a server on the copy accepts the keys and passwords (and still refuses the revoked keys), and
 * a restore into a database that holds data is refused unless `--force`.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../../src/config/env.js';
import { openStore } from '../../src/store/open-store.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { runCommand } from '../../tools/process/run-command.js';
import { startServer } from '../../tools/process/server.js';
import { expectAllPresent, expectCredentialsWork, makeData } from '../helpers/data-fixture.js';
import { freshDatabase } from '../helpers/postgres.js';

const scratch = mkdtempSync(join(tmpdir(), 'backup-restore-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let made = 0;

const engines: Array<{ name: string; fresh(): Promise<StoreConfig>; env(config: StoreConfig): Record<string, string> }> = [
  {
    name: 'SQLite',
    fresh: async () => ({ databasePath: join(scratch, `db-${++made}`, 'api.sqlite') }),
    env: (config) => ({ DATABASE_PATH: config.databasePath }),
  },
  {
    name: 'PostgreSQL',
    fresh: async () => ({ databasePath: ':unused:', databaseUrl: await freshDatabase('backup') }),
    env: (config) => ({ DATABASE_URL: config.databaseUrl ?? '' }),
  },
];

const run = (script: 'backup' | 'restore', args: string[], env: Record<string, string>) => runCommand(tsxCommand(`src/cli/${script}.ts`, args), { env });

describe.each(engines)('backup and restore on $name', (engine) => {
  it('copies everything made before the backup, while a server and another writer write, into a copy whose keys and passwords work', async () => {
    const source = await engine.fresh();
    const store = await openStore(source);
    const server = await startServer({ env: engine.env(source) });
    let writing = true;
    let writes = 0;
    try {
      const before = await makeData(store, 4, 'before');
      const live = before.keys[0]?.key ?? '';
      // Writes that go on while the backup runs: new users and keys from this process, key uses through the server.
      const writer = (async () => {
        while (writing) {
          await makeData(store, 1, 'during');
          await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${live}` } });
          writes++;
        }
      })();
      const file = join(scratch, `backup-${made}.${engine.name === 'SQLite' ? 'sqlite' : 'dump'}`);
      const backup = await run('backup', ['--out', file], engine.env(source));
      writing = false;
      await writer;
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toMatch(/^Backed up .+ to .+: .*\d+ users.*\.\n$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(writes).toBeGreaterThan(0);

      const target = await engine.fresh();
      const restore = await run('restore', ['--from', file], engine.env(target));
      expect(restore.code, restore.stderr).toBe(0);
      const restored = await openStore(target);
      try {
        await expectAllPresent(restored, before);
      } finally {
        await restored.close();
      }
      const onCopy = await startServer({ env: engine.env(target) });
      try {
        await expectCredentialsWork(onCopy, before);
      } finally {
        await onCopy.stop();
      }

      const again = await run('restore', ['--from', file], engine.env(target));
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^restore: .* holds data already \(.*users.*\): give --force to replace it/);
      const forced = await run('restore', ['--from', file, '--force'], engine.env(target));
      expect(forced.code, forced.stderr).toBe(0);
    } finally {
      writing = false;
      await server.stop();
      await store.close();
    }
  });
});

describe('backup and restore refusing what they cannot use, in one line', () => {
  it('restore into a DATABASE_PATH that is not an SQLite database: exit 1, the reason, no stack', async () => {
    const from = await engines[0]!.fresh();
    await (await openStore(from)).close();
    const backupFile = join(scratch, 'one-line.backup');
    expect((await run('backup', ['--out', backupFile], engines[0]!.env(from))).code).toBe(0);
    const notADatabase = join(scratch, 'notes.txt');
    writeFileSync(notADatabase, 'not a database, but notes that are long enough to fill an SQLite header and more of it\n'.repeat(20), { mode: 0o600 });
    const refused = await run('restore', ['--from', backupFile, '--force'], { DATABASE_PATH: notADatabase });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^restore: .*not a database/);
    expect(refused.stderr).not.toMatch(/^\s+at /m);
  });

  it('a backup of a PostgreSQL database that does not exist: exit 2, naming it and what to do', async () => {
    const missing = `${(await freshDatabase('backup_missing')).replace(/\/[^/]+$/, '')}/no_such_database`;
    const refused = await run('backup', ['--out', join(scratch, 'never.backup')], { DATABASE_URL: missing });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('DATABASE_URL names the database "no_such_database", which does not exist on that server');
    expect(refused.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(join(scratch, 'never.backup'))).toBe(false);
  });
});

/**
 * Expand and contract (docs/adr/0028-expand-and-contract-migrations.md), end to end: the previous release's
 * server, taken from git history, serves a database this code has migrated past it (on SQLite and on
 * PostgreSQL), so instances upgrade one at a time and roll back; and this code, given a database whose schema
 * needs newer code, stops with a `configuration error` naming both versions, exit 2.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../../src/config/env.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { openStore } from '../../src/store/open-store.js';
import { CODE_SCHEMA_VERSION, COMPATIBILITY_TABLE } from '../../src/store/schema-policy.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { launch } from '../../tools/process/launch.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { runCommand } from '../../tools/process/run-command.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';
import { extractCommit, releaseBefore } from '../helpers/previous-release.js';

const scratch = mkdtempSync(join(tmpdir(), 'previous-release-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const engines: Array<{ name: string; config(): Promise<StoreConfig>; env(config: StoreConfig): Record<string, string> }> = [
  {
    name: 'SQLite',
    config: async () => ({ databasePath: join(scratch, `db-${Date.now()}`, 'api.sqlite') }),
    env: (config) => ({ DATABASE_PATH: config.databasePath }),
  },
  {
    name: 'PostgreSQL',
    config: async () => ({ databasePath: ':unused:', databaseUrl: await freshDatabase('previous_release') }),
    env: (config) => ({ DATABASE_URL: config.databaseUrl ?? '' }),
  },
];

/** A database this code made and migrated, with a user and a key, and that key. */
async function currentDatabase(config: StoreConfig): Promise<string> {
  const store = await openStore(config);
  try {
    const user = await store.createUser('ann', new Date().toISOString());
    const { key, digest, hint } = generateApiKey();
    await store.createKey(user.id, digest, hint, new Date().toISOString());
    return key;
  } finally {
    await store.close();
  }
}

describe.each(engines)('on $name', (engine) => {
  it("the previous release's server serves a database this code migrated one version past it", async () => {
    const release = releaseBefore(CODE_SCHEMA_VERSION);
    if ('missing' in release) throw new Error(release.missing);
    const config = await engine.config();
    const key = await currentDatabase(config);
    const previous = extractCommit(release.commit);
    const server = launch([process.execPath, '--import', 'tsx', join(previous.root, 'src/server/main.ts')], {
      cwd: previous.root,
      env: { NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', WEB_PORT: '0', LOG_LEVEL: 'warn', ...engine.env(config) },
    });
    try {
      const [, url] = await waitForOutput(server, /^Listening on (\S+)$/m, { timeoutMs: 60_000 });
      const response = await fetch(`${url}/shared`, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status, server.outputTail()).toBe(200);
    } finally {
      await server.stop();
      previous.remove();
    }
  });

  it('this server refuses a database whose schema needs newer code: a configuration error naming both versions, exit 2', async () => {
    const config = await engine.config();
    await currentDatabase(config);
    const newer = CODE_SCHEMA_VERSION + 1;
    if (config.databaseUrl)
      await withClient(config.databaseUrl, async (client) => {
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [newer]);
        await client.query(`UPDATE ${COMPATIBILITY_TABLE} SET oldest_code = $1`, [newer]);
      });
    else {
      const db = new Database(config.databasePath);
      db.pragma(`user_version = ${newer}`);
      db.prepare(`UPDATE ${COMPATIBILITY_TABLE} SET oldest_code = ?`).run(newer);
      db.close();
    }
    const run = await runCommand(tsxCommand('src/server/main.ts'), {
      env: { NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', WEB_PORT: '0', ...engine.env(config) },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `configuration error: the database is at schema version ${newer}, which runs code of schema version ${newer} or newer; this code is of schema version ${CODE_SCHEMA_VERSION}.`,
    );
  });
});

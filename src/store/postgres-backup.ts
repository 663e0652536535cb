/**
 * `npm run backup` and `npm run restore` for PostgreSQL: a thin wrapper over `pg_dump --format=custom` (one
 * consistent snapshot, taken while servers write) and `pg_restore`, with the checks the wrapper adds: a new
 * private file, a target that holds no data unless told, and the restored rows counted.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { ConfigError } from '../config/config-error.js';
import { DataCommandRefused, replaceAtomically, type TableCounts } from './data-commands.js';
import { runPostgresTool } from './postgres-binaries.js';
import { connectionRefusedByConfiguration, translateError } from './postgres-store.js';
import { preparePrivateFile } from './private-files.js';
import { isDataTable } from './schema-policy.js';

/** Rows in each data table of the database at `url` (none when it has no tables yet). */
export async function postgresCounts(client: pg.ClientBase): Promise<TableCounts> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const counts: TableCounts = {};
  for (const { name } of rows.filter((row) => isDataTable(row.name)))
    counts[name] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${name}"`)).rows[0]?.n ?? 0);
  return counts;
}

/**
 * Runs `work` on one connection to `url` (no statement timeout: a count of a big table may take a while). A
 * database that cannot be reached is `StoreUnavailable`, as for the server: the CLIs answer it with exit 1 and
 * one line, not a stack.
 */
export async function withPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'bearer-list-api data command' });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    // A database that does not exist, or a user the server refuses, is the configuration's fault: exit 2, one line.
    const refusal = connectionRefusedByConfiguration(error, url);
    throw refusal === undefined ? translateError(error) : new ConfigError(refusal);
  }
  try {
    return await work(client);
  } catch (error) {
    throw translateError(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `pg_dump --format=custom` of `url` into a new file `out` (0600); refuses an existing `out` unless `force`. */
export async function backupPostgres(url: string, out: string, options: { force?: boolean } = {}): Promise<TableCounts> {
  if (existsSync(out) && !options.force) throw new DataCommandRefused(`${out} exists already: give another --out, or --force to replace it`);
  // The rows are counted in the very snapshot pg_dump copies: this transaction exports it (pg_export_snapshot) and
  // stays open while pg_dump runs with --snapshot, so the counts describe the dump even while servers write.
  return withPostgres(url, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0]?.id ?? '';
      const counts = await postgresCounts(client);
      // Written beside `out` and renamed over it once pg_dump has succeeded: a failed dump leaves the last good one in place.
      await replaceAtomically(out, async (partial) => {
        preparePrivateFile(partial, { name: '--out', value: out }, (message) => new DataCommandRefused(message));
        await runPostgresTool('pg_dump', url, ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${snapshot}`, `--file=${partial}`]);
      });
      return counts;
    } finally {
      await client.query('COMMIT').catch(() => undefined);
    }
  });
}

/**
 * `pg_restore` of the dump `from` into the database at `url`, in one transaction (a failure leaves the target as
 * it was). Refuses a target that holds data unless `force`; a target with the schema but no data (a server
 * started on it) is cleaned first.
 */
export async function restorePostgres(url: string, from: string, options: { force?: boolean } = {}): Promise<TableCounts> {
  if (!existsSync(from)) throw new DataCommandRefused(`the backup ${from} does not exist`);
  const before = await withPostgres(url, postgresCounts);
  const held = Object.entries(before).filter(([, rows]) => rows > 0);
  if (held.length > 0 && !options.force)
    throw new DataCommandRefused(
      `the database holds data already (${held.map(([table, rows]) => `${rows} ${table}`).join(', ')}): give --force to replace it with the backup, or point DATABASE_URL at an empty database`,
    );
  const clean = Object.keys(before).length > 0 ? ['--clean', '--if-exists'] : [];
  await runPostgresTool('pg_restore', url, ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', ...clean, from]);
  return withPostgres(url, postgresCounts);
}

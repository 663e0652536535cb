/**
 * `npm run backup` and `npm run restore` for the embedded SQLite store, through SQLite's online backup API
 * (better-sqlite3's `db.backup()`): the copy is one consistent moment of the database even while a server
 * writes to it, the write-ahead log included (a `cp` of the file alone misses what is still in the log).
 */
import { existsSync, realpathSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DataCommandRefused, replaceAtomically, type TableCounts } from './data-commands.js';
import { prepareDatabaseFile, preparePrivateFile } from './private-files.js';
import { isDataTable } from './schema-policy.js';

/** SQLite's page copy in one step: a step that ends between two writes of another connection never restarts. */
const ALL_REMAINING_PAGES = 0x7fffffff;

/** Rows in each data table of an open SQLite database. */
export function sqliteCounts(db: Database.Database): TableCounts {
  const tables = db
    .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all()
    .filter(isDataTable);
  return Object.fromEntries(tables.map((table) => [table, db.prepare<[], number>(`SELECT count(*) FROM "${table}"`).pluck().get() ?? 0]));
}

/** Opens a file that must be an SQLite database of this service (it has a `users` table), for reading; `readonly`, SQLite refuses any write. */
export function openServiceDatabase(file: string, what: string, options: { readonly?: boolean } = {}): Database.Database {
  if (!existsSync(file)) throw new DataCommandRefused(`${what} ${file} does not exist`);
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true, readonly: options.readonly ?? false });
    db.pragma('busy_timeout = 5000');
    const found = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'users'").get();
    if (!found) {
      db.close();
      throw new DataCommandRefused(`${what} ${file} is an SQLite database, but not one of this service (it has no users table)`);
    }
  } catch (error) {
    if (error instanceof DataCommandRefused) throw error;
    throw new DataCommandRefused(`${what} ${file} is not an SQLite database (${error instanceof Error ? error.message : String(error)})`);
  }
  return db;
}

/** Copies the database at `source` into a new file `out` (0600), and checks the copy; refuses an existing `out` unless `force`. */
export async function backupSqlite(source: string, out: string, options: { force?: boolean } = {}): Promise<TableCounts> {
  if (existsSync(out) && !options.force) throw new DataCommandRefused(`${out} exists already: give another --out, or --force to replace it`);
  if (existsSync(out) && existsSync(source) && realpathSync(out) === realpathSync(source))
    throw new DataCommandRefused(`${out} is the database itself (DATABASE_PATH): give --out another file`);
  const db = openServiceDatabase(source, 'the database');
  try {
    // Written beside `out` and renamed over it once checked: a failed backup leaves the last good one in place.
    return await replaceAtomically(out, async (partial) => {
      preparePrivateFile(partial, { name: '--out', value: out }, (message) => new DataCommandRefused(message));
      await db.backup(partial, { progress: () => ALL_REMAINING_PAGES });
      return checkCopy(partial);
    });
  } finally {
    db.close();
  }
}

/**
 * Copies the backup `from` into the database at `target` (DATABASE_PATH). Refuses a target that holds data
 * unless `force`: its data would be replaced. Stop the servers on `target` first.
 */
export async function restoreSqlite(from: string, target: string, options: { force?: boolean } = {}): Promise<TableCounts> {
  const backup = openServiceDatabase(from, 'the backup');
  try {
    const expected = sqliteCounts(backup);
    if (existsSync(target) && !options.force) {
      const current = new Database(target, { fileMustExist: true });
      try {
        const held = Object.entries(sqliteCounts(current)).filter(([, rows]) => rows > 0);
        if (held.length > 0)
          throw new DataCommandRefused(
            `${target} holds data already (${held.map(([table, rows]) => `${rows} ${table}`).join(', ')}): give --force to replace it with the backup, or point DATABASE_PATH elsewhere`,
          );
      } finally {
        current.close();
      }
    }
    prepareDatabaseFile(target);
    await backup.backup(target, { progress: () => ALL_REMAINING_PAGES });
    const restored = checkCopy(target);
    if (JSON.stringify(restored) !== JSON.stringify(expected))
      throw new DataCommandRefused(`the restored database's rows ${JSON.stringify(restored)} differ from the backup's ${JSON.stringify(expected)}`);
    return restored;
  } finally {
    backup.close();
  }
}

/** The copy passes SQLite's integrity check; its row counts. */
function checkCopy(file: string): TableCounts {
  const copy = new Database(file, { fileMustExist: true });
  try {
    // The copy has the live database's WAL mode, which needs a writable folder to open; a backup is read from
    // anywhere (a read-only mount), so it is made a plain rollback-journal file.
    copy.pragma('journal_mode = DELETE');
    const integrity = copy.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new DataCommandRefused(`the copy at ${file} fails SQLite's integrity check: ${String(integrity)}`);
    return sqliteCounts(copy);
  } finally {
    copy.close();
  }
}

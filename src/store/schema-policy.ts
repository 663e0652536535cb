/**
 * Expand and contract (docs/adr/0028-expand-and-contract-migrations.md): each schema version says the oldest
 * code that still runs against it, so an instance of the previous release keeps serving while another
 * instance migrates the database ahead of it, and a release can be rolled back without restoring a backup.
 *
 * "Code version" is the schema version a build of the code was written for: the number of migrations it
 * carries (`CODE_SCHEMA_VERSION`). A migration that only adds (a table, a nullable column, a column with a
 * default, an index) leaves the previous code running: its `oldestCode` is the version before it. One that
 * renames, drops or changes the meaning of what older code reads is a contraction: its `oldestCode` is
 * itself, and it ships a release after the code stopped reading the old shape.
 */

/** One entry per migration, in order, for both engines (`SCHEMA_MIGRATIONS` in `migrations.ts`). */
export const SCHEMA_VERSIONS: readonly { version: number; oldestCode: number; change: string }[] = [
  { version: 1, oldestCode: 1, change: 'users, keys, items and shares' },
  { version: 2, oldestCode: 1, change: 'accounts, named and expiring keys, sessions, key events (additions)' },
  { version: 3, oldestCode: 2, change: 'shared rate-limit windows (a new table)' },
  { version: 4, oldestCode: 3, change: 'failed sign-ins counted in the database (a new table)' },
  { version: 5, oldestCode: 5, change: 'failure windows renamed to attempt counts: code 4 reads the old name' },
  { version: 6, oldestCode: 5, change: "an index on a user's sessions" },
  // Code 6 still runs; a key removed from its owner's list shows there again while code 6 serves (it is
  // revoked or expired, so it works no more than it did).
  { version: 7, oldestCode: 6, change: 'keys removed from their owner’s list (a nullable column)' },
  { version: 8, oldestCode: 7, change: 'indexes for retention: key events by time, removed keys, replaced keys (indexes)' },
  // Code 8 still runs: it neither reads nor writes the versions; its sessions carry none (NULL), and its password
  // change ends every other session by deleting them, as it always did.
  { version: 9, oldestCode: 8, change: 'a credential version on each user and session (a column with a default, a nullable column)' },
  {
    version: 10,
    oldestCode: 8,
    change: "budgets shared by every instance: failed authentications per address (a new table); a key's change notifies its digest (triggers)",
  },
];

/** The schema version this code was written for. */
export const CODE_SCHEMA_VERSION = SCHEMA_VERSIONS.length;

/**
 * The one bookkeeping table the migration runners keep beside `PRAGMA user_version` (SQLite) and
 * `schema_migrations` (PostgreSQL): one row, the oldest code version that runs on the database as it is.
 * Written by the code that migrated it, read by older code, which cannot know the newer migrations.
 */
export const COMPATIBILITY_TABLE = 'schema_compatibility';

/** Tables that describe the schema rather than hold data: never copied, backed up as part of the schema. */
export const BOOKKEEPING_TABLES: readonly string[] = [COMPATIBILITY_TABLE, 'schema_migrations'];

/**
 * Tables whose rows are settings rather than data (`meta`: the generated secrets): a database with rows only in
 * these and the bookkeeping tables counts as empty, as one a server has started on but nobody has used.
 */
export const SETTINGS_TABLES: readonly string[] = ['meta'];

/** Whether a table holds data: `backup`, `restore` and `migrate:store` count and compare these. */
export function isDataTable(name: string): boolean {
  return !BOOKKEEPING_TABLES.includes(name) && !SETTINGS_TABLES.includes(name);
}

/** The oldest code that runs on a database at `version`: the highest `oldestCode` of every migration up to it. */
export function oldestCodeFor(version: number): number {
  return Math.max(0, ...SCHEMA_VERSIONS.slice(0, version).map((entry) => entry.oldestCode));
}

/**
 * The database's schema is newer than this code, and this code is older than the oldest the database says
 * still runs on it. A configuration error: the entry points print `configuration error: …` and exit 2.
 */
export class SchemaTooNew extends Error {
  override name = 'SchemaTooNew';
  constructor(
    readonly databaseVersion: number,
    readonly oldestCode: number | undefined,
    readonly codeVersion: number,
  ) {
    super(
      `the database is at schema version ${databaseVersion}, which runs code of schema version ${oldestCode ?? databaseVersion} or newer; ` +
        `this code is of schema version ${codeVersion}. Deploy a release of schema version ${oldestCode ?? databaseVersion} or newer, ` +
        'or restore the backup taken before the upgrade (docs/data.md, "Upgrading")',
    );
  }
}

/**
 * What to do with a database at `databaseVersion` whose recorded oldest code is `recordedOldest` (undefined
 * when no row: made before this policy, or by newer code that has none): `migrate` from the version given,
 * `run` as is (a newer schema this code still runs on), or throws `SchemaTooNew`.
 */
export function planFor(databaseVersion: number, recordedOldest: number | undefined, codeVersion = CODE_SCHEMA_VERSION): 'migrate' | 'run' {
  if (databaseVersion <= codeVersion) return 'migrate';
  if (recordedOldest !== undefined && recordedOldest <= codeVersion) return 'run';
  throw new SchemaTooNew(databaseVersion, recordedOldest, codeVersion);
}

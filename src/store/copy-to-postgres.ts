/**
 * `npm run migrate:store`: every row of an SQLite database copied into a PostgreSQL one, in one transaction
 * (a failure leaves the target as it was, so the command can simply be run again), with the rows of each table
 * counted on both sides before it commits. Tables and columns are read from the two schemas, not listed here:
 * both engines end at the same ones (`test/store/schema.test.ts`), and a difference is refused.
 */
import type Database from 'better-sqlite3';
import { DataCommandRefused, type TableCounts } from './data-commands.js';
import { postgresCounts, withPostgres } from './postgres-backup.js';
import { createPool, DEFAULT_POSTGRES_SETTINGS, migrate } from './postgres-store.js';
import { BOOKKEEPING_TABLES, CODE_SCHEMA_VERSION } from './schema-policy.js';
import { openServiceDatabase, sqliteCounts } from './sqlite-backup.js';

/** Rows sent in one INSERT: a few hundred kilobytes of JSON. */
const BATCH_ROWS = 500;

interface SourceTable {
  name: string;
  columns: string[];
  /** Columns that refer to another row of the same table (a key's `replaced_by`): referenced rows go first. */
  selfReferences: Array<{ from: string; to: string }>;
}

/** The tables to copy, each after the tables it refers to. */
function sourceTables(db: Database.Database): SourceTable[] {
  const names = db
    .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all()
    .filter((name) => !BOOKKEEPING_TABLES.includes(name));
  const tables = new Map<string, SourceTable & { refersTo: string[] }>();
  for (const name of names) {
    const keys = db.prepare<[], { table: string; from: string; to: string }>(`PRAGMA foreign_key_list("${name}")`).all();
    tables.set(name, {
      name,
      columns: db
        .prepare<[], { name: string }>(`PRAGMA table_info("${name}")`)
        .all()
        .map((column) => column.name),
      selfReferences: keys.filter((key) => key.table === name).map(({ from, to }) => ({ from, to })),
      refersTo: keys.map((key) => key.table).filter((table) => table !== name),
    });
  }
  const ordered: SourceTable[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: string[]) => {
    if (placed.has(name)) return;
    if (path.includes(name)) throw new Error(`the tables refer to each other in a cycle: ${[...path, name].join(' -> ')}`);
    const table = tables.get(name);
    if (!table) return;
    for (const other of table.refersTo) place(other, [...path, name]);
    placed.add(name);
    ordered.push({ name: table.name, columns: table.columns, selfReferences: table.selfReferences });
  };
  for (const name of names) place(name, []);
  return ordered;
}

/** Rows ordered so that a row another row refers to (through `references`) comes before it. */
function referencedFirst(rows: Record<string, unknown>[], references: SourceTable['selfReferences']): Record<string, unknown>[] {
  if (references.length === 0) return rows;
  const byKey = new Map(references.flatMap((reference) => rows.map((row) => [`${reference.to}=${String(row[reference.to])}`, row] as const)));
  const ordered: Record<string, unknown>[] = [];
  const done = new Set<Record<string, unknown>>();
  const visit = (row: Record<string, unknown>, depth: number) => {
    if (done.has(row) || depth > rows.length) return;
    for (const reference of references) {
      const value = row[reference.from];
      const target = value === null || value === undefined ? undefined : byKey.get(`${reference.to}=${String(value)}`);
      if (target && target !== row) visit(target, depth + 1);
    }
    if (!done.has(row)) {
      done.add(row);
      ordered.push(row);
    }
  };
  for (const row of rows) visit(row, 0);
  return ordered;
}

/** A row as JSON PostgreSQL's `json_populate_recordset` reads into the table's own types: bytes as `\x…` hex. */
function asJson(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [column, Buffer.isBuffer(value) ? `\\x${value.toString('hex')}` : value]));
}

/** Refuses a target that holds data, unless `force`. */
async function refuseHeldData(counts: TableCounts, force: boolean): Promise<void> {
  const held = Object.entries(counts).filter(([, rows]) => rows > 0);
  if (held.length > 0 && !force)
    throw new DataCommandRefused(
      `the PostgreSQL database holds data already (${held.map(([table, rows]) => `${rows} ${table}`).join(', ')}): give --force to replace it, or point DATABASE_URL at an empty database`,
    );
}

/**
 * Copies every table of the SQLite database at `sqlitePath` into the PostgreSQL database at `url` (creating its
 * schema). Refuses a target that holds data unless `force`, which replaces it. Stop the servers on the SQLite
 * file first: what they write after the copy's snapshot is not copied. Returns the rows copied per table.
 */
export async function copySqliteToPostgres(sqlitePath: string, url: string, options: { force?: boolean } = {}): Promise<TableCounts> {
  // Read only: the source stays as it was, for the release that made it, whatever happens here.
  const source = openServiceDatabase(sqlitePath, 'the SQLite database', { readonly: true });
  try {
    const version = source.pragma('user_version', { simple: true }) as number;
    if (version !== CODE_SCHEMA_VERSION)
      throw new DataCommandRefused(
        version < CODE_SCHEMA_VERSION
          ? `the SQLite database is at schema version ${version}, this code at ${CODE_SCHEMA_VERSION}: run migrate:store with the release the servers ran, or start this release's server on the file once (it migrates it) and stop it first`
          : `the SQLite database is at schema version ${version}, this code at ${CODE_SCHEMA_VERSION}: run migrate:store with the release that made the database`,
      );
    // Refused before anything is created in the target; checked again inside the copy's transaction.
    await refuseHeldData(await withPostgres(url, postgresCounts), options.force ?? false);
    const pool = createPool(url, DEFAULT_POSTGRES_SETTINGS, 'bearer-list-api migrate:store');
    try {
      await migrate(pool);
    } finally {
      await pool.end();
    }
    // One read transaction: one consistent moment of the source, whatever else writes to it.
    source.exec('BEGIN');
    try {
      const tables = sourceTables(source);
      const expected = sqliteCounts(source);
      return await withPostgres(url, async (client) => {
        await client.query('BEGIN');
        try {
          await refuseHeldData(await postgresCounts(client), options.force ?? false);
          const targetColumns = new Map<string, string[]>();
          for (const { name } of tables) {
            const { rows } = await client.query<{ column: string }>(
              "SELECT column_name AS column FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
              [name],
            );
            targetColumns.set(
              name,
              rows.map((row) => row.column),
            );
          }
          for (const table of tables) {
            const columns = targetColumns.get(table.name) ?? [];
            if (JSON.stringify([...columns].sort()) !== JSON.stringify([...table.columns].sort()))
              throw new DataCommandRefused(`table ${table.name} has columns (${table.columns.join(', ')}) in SQLite but (${columns.join(', ')}) in PostgreSQL`);
          }
          // The source's settings (its generated secrets) replace any the target made when a server started on it.
          await client.query(`TRUNCATE ${tables.map((table) => `"${table.name}"`).join(', ')} CASCADE`);
          for (const table of tables) {
            const list = table.columns.map((column) => `"${column}"`).join(', ');
            const rows = referencedFirst(source.prepare(`SELECT ${list} FROM "${table.name}"`).all() as Record<string, unknown>[], table.selfReferences);
            for (let start = 0; start < rows.length; start += BATCH_ROWS)
              await client.query(`INSERT INTO "${table.name}" (${list}) SELECT ${list} FROM json_populate_recordset(NULL::"${table.name}", $1::json)`, [
                JSON.stringify(rows.slice(start, start + BATCH_ROWS).map(asJson)),
              ]);
          }
          const copied = await postgresCounts(client);
          if (JSON.stringify(copied) !== JSON.stringify(expected))
            throw new DataCommandRefused(`the copy's rows ${JSON.stringify(copied)} differ from the source's ${JSON.stringify(expected)}; nothing was written`);
          await client.query('COMMIT');
          return copied;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    } finally {
      source.exec('COMMIT');
    }
  } finally {
    source.close();
  }
}

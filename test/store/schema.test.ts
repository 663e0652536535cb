/**
 * The migrations are written once (`src/store/migrations.ts`) and rendered for each engine through its
 * dialect; this checks the two renderings agree where it matters: after all of them, both engines have the
 * same tables, the same columns (in order, with the same nullability and a matching type), the same primary,
 * unique and foreign keys. Timestamps are RFC 3339 text in SQLite and `timestamptz` in PostgreSQL. That each
 * shipped migration's SQLite text is unchanged is `migrations.test.ts`'s.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, POSTGRES_MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { BOOKKEEPING_TABLES, SCHEMA_VERSIONS } from '../../src/store/schema-policy.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';

interface Column {
  name: string;
  type: 'text' | 'timestamp' | 'bytes' | 'integer';
  nullable: boolean;
}

interface Table {
  columns: Column[];
  primaryKey: string[];
  unique: string[][];
  foreignKeys: string[];
}

type Schema = Record<string, Table>;

/** SQLite keeps timestamps as text; a column named `at` or `*_at` is one. */
function sqliteType(declared: string, name: string): Column['type'] {
  if (declared === 'BLOB') return 'bytes';
  if (declared === 'INTEGER') return 'integer';
  return name === 'at' || name.endsWith('_at') ? 'timestamp' : 'text';
}

function postgresType(declared: string): Column['type'] | string {
  return (
    ({ text: 'text', 'timestamp with time zone': 'timestamp', bytea: 'bytes', integer: 'integer', bigint: 'integer' } as Record<string, Column['type']>)[
      declared
    ] ?? declared
  );
}

function sqliteSchema(): Schema {
  const db = new Database(':memory:');
  for (const migration of MIGRATIONS) db.exec(migration);
  const schema: Schema = {};
  const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all();
  for (const { name } of tables) {
    const columns = db.prepare<[], { name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info(${name})`).all();
    const indexes = db.prepare<[], { name: string; unique: number; origin: string }>(`PRAGMA index_list(${name})`).all();
    const unique = indexes
      .filter((index) => index.unique && index.origin === 'u')
      .map((index) =>
        db
          .prepare<[], { name: string }>(`PRAGMA index_info(${index.name})`)
          .all()
          .map((column) => column.name),
      );
    const foreignKeys = db
      .prepare<[], { from: string; table: string; to: string; on_delete: string }>(`PRAGMA foreign_key_list(${name})`)
      .all()
      .map((key) => `${key.from} -> ${key.table}(${key.to}) on delete ${key.on_delete.toLowerCase()}`);
    schema[name] = {
      columns: columns.map((column) => ({ name: column.name, type: sqliteType(column.type, column.name), nullable: column.notnull === 0 && column.pk === 0 })),
      primaryKey: columns
        .filter((column) => column.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((column) => column.name),
      unique: unique.sort(),
      foreignKeys: foreignKeys.sort(),
    };
  }
  db.close();
  return schema;
}

async function postgresSchema(url: string): Promise<Schema> {
  return withClient(url, async (client) => {
    const schema: Schema = {};
    const tables = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND NOT (table_name = ANY($1)) ORDER BY table_name",
      [BOOKKEEPING_TABLES],
    );
    for (const { name } of tables.rows) {
      const columns = await client.query<{ name: string; type: string; nullable: string }>(
        "SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
        [name],
      );
      const constraints = await client.query<{ type: string; columns: string[]; definition: string }>(
        `SELECT c.contype AS type, array_agg(a.attname ORDER BY k.ordinality)::text[] AS columns, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ordinality)
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
         WHERE c.conrelid = $1::regclass GROUP BY c.oid, c.contype`,
        [name],
      );
      const foreignKeys = constraints.rows
        .filter((constraint) => constraint.type === 'f')
        .map((constraint) => {
          const match = /^FOREIGN KEY \((\w+)\) REFERENCES (\w+)\((\w+)\)(?: ON DELETE (\w+))?/.exec(constraint.definition);
          return `${match?.[1]} -> ${match?.[2]}(${match?.[3]}) on delete ${(match?.[4] ?? 'no action').toLowerCase()}`;
        });
      schema[name] = {
        columns: columns.rows.map((column) => ({ name: column.name, type: postgresType(column.type) as Column['type'], nullable: column.nullable === 'YES' })),
        primaryKey: constraints.rows.find((constraint) => constraint.type === 'p')?.columns ?? [],
        unique: constraints.rows
          .filter((constraint) => constraint.type === 'u')
          .map((constraint) => constraint.columns)
          .sort(),
        foreignKeys: foreignKeys.sort(),
      };
    }
    return schema;
  });
}

describe("the two engines' schemas", () => {
  it('have as many migrations each', () => {
    expect(POSTGRES_MIGRATIONS.length, 'every entry of SCHEMA_MIGRATIONS in src/store/migrations.ts renders for both engines').toBe(MIGRATIONS.length);
  });

  it('each have their entry in the compatibility policy, none needing code newer than itself', () => {
    expect(SCHEMA_VERSIONS.length, 'append an entry to SCHEMA_VERSIONS in src/store/schema-policy.ts').toBe(MIGRATIONS.length);
    for (const [index, entry] of SCHEMA_VERSIONS.entries()) {
      expect(entry.version).toBe(index + 1);
      expect(entry.oldestCode).toBeLessThanOrEqual(entry.version);
    }
  });

  it('end at the same tables, columns, keys and nullability', async () => {
    const url = await freshDatabase('schema');
    await (await openStore({ databasePath: ':unused:', databaseUrl: url })).close();
    expect(
      await postgresSchema(url),
      'the PostgreSQL rendering of src/store/migrations.ts has drifted from the SQLite one: a dialect type or a PostgreSQL-only statement',
    ).toEqual(sqliteSchema());
  });
});

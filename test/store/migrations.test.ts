/**
 * The migrations are written once, as functions of a dialect (`src/store/migrations.ts`). A shipped migration never
 * changes what it does: SQLite keeps each CREATE statement's text, so its SQLite rendering is pinned byte for byte
 * by its SHA-256 here. Whether the two renderings end at the same schema is `schema.test.ts`'s.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, type Migration, POSTGRES, POSTGRES_MIGRATIONS, SCHEMA_MIGRATIONS, SQLITE } from '../../src/store/migrations.js';

/** The SHA-256 of each shipped migration's SQLite text, in order. Append a migration's when its release ships; never change one. */
const SHIPPED_SQLITE_SHA256 = [
  'e4f30fd6a40afad22e41b9c476659359bb0ee4c8539790d6fb9d049be62d44c9',
  'edd9dfa868bdea293718cd8255c76fbe140bd0a40e5a97b9d04b86675d4c2fcc',
  '4e2555c1ad736c42d3d3ed7c9d8c88b134069cea8e2c01856405b49f2be3261d',
  '8123208c6362927081d362f6ea929830a7bac41f3d2e14a4f58ed78b4d9a3fff',
  '20831983d25da29e4adc5dd1d6ec5f25b9334727e9593894f649dee1799037e3',
  '212d8c190a2486b9d28a0193c628e178cb954a9bc68627ad21c2dba14bdc67ff',
  '62758065f57a26a3d643cf5ad3e154826e81b93d8137c55f4dc17c3a228946a5',
  '928f5b07eca5d48a93fcabc81635dd30be352f60553c7170d513e8eee4c8e48a',
  '7442b1205f59daded307f222cc1cbf3d81e4fa2c9bdf591828ced8511623b3dd',
];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the schema migrations', () => {
  it('still render, for SQLite, each shipped one byte for byte as it shipped', () => {
    expect(MIGRATIONS.length).toBeGreaterThanOrEqual(SHIPPED_SQLITE_SHA256.length);
    SHIPPED_SQLITE_SHA256.forEach((shipped, index) => {
      expect(sha256(MIGRATIONS[index] ?? ''), `migration ${index + 1} has shipped: never edit it, append a new one`).toBe(shipped);
    });
  });

  it('render every one for both engines, each in its own dialect only', () => {
    expect(MIGRATIONS).toHaveLength(SCHEMA_MIGRATIONS.length);
    expect(POSTGRES_MIGRATIONS).toHaveLength(SCHEMA_MIGRATIONS.length);
    for (const [index, sqlite] of MIGRATIONS.entries()) {
      expect(sqlite, `SQLite's migration ${index + 1}`).not.toMatch(/\b(bytea|timestamptz|bigint|UNLOGGED|plpgsql|TRIGGER|FUNCTION)\b/);
      expect(POSTGRES_MIGRATIONS[index], `PostgreSQL's migration ${index + 1}`).not.toMatch(/\b(STRICT|WITHOUT ROWID|BLOB|INTEGER|TEXT)\b/);
    }
  });

  it('render a new one written once for both engines, and SQLite runs it after the shipped ones', () => {
    const next: Migration = (d) => `
  CREATE ${d.unlogged}TABLE notes (
    id ${d.text} PRIMARY KEY,
    body ${d.blob} NOT NULL,
    size ${d.integer} NOT NULL,
    at_ms ${d.bigint} NOT NULL,
    at ${d.timestamp} NOT NULL
  )${d.strict}${d.withoutRowid};
  ${d.postgresOnly(`CREATE TRIGGER notes_changed AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION notify_store_change();
  `)}`;
    expect(next(SQLITE)).toBe(`
  CREATE TABLE notes (
    id TEXT PRIMARY KEY,
    body BLOB NOT NULL,
    size INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    at TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  `);
    expect(next(POSTGRES)).toBe(`
  CREATE UNLOGGED TABLE notes (
    id text PRIMARY KEY,
    body bytea NOT NULL,
    size integer NOT NULL,
    at_ms bigint NOT NULL,
    at timestamptz NOT NULL
  );
  CREATE TRIGGER notes_changed AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION notify_store_change();
  `);
    const db = new Database(':memory:');
    for (const migration of [...MIGRATIONS, next(SQLITE)]) db.exec(migration);
    expect(db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'notes'").pluck().get()).toContain('STRICT, WITHOUT ROWID');
    db.close();
  });
});

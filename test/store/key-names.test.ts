/**
 * A key's name holds no control character (account.yaml 2.0.0, issue 33): the account API refuses one with 422,
 * and migration 10 replaces each one a stored name holds with U+FFFD, on both engines, so every stored name answers
 * as the contract now says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { MIGRATIONS, POSTGRES_MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';
import { createTestWebApp } from '../helpers/web-app.js';

/** The migration that cleans the names, counted from 1. */
const CLEANING = 10;
const NAMES = ['tab\there', 'bell\u0007', 'escape \u001b[2J', 'next line\u0085', 'plain'];
const CLEANED = ['tab\ufffdhere', 'bell\ufffd', 'escape \ufffd[2J', 'next line\ufffd', 'plain'];
const at = '2026-01-01T00:00:00.000Z';

const scratch = mkdtempSync(join(tmpdir(), 'key-names-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a key name with a control character', () => {
  it('is refused by the account API with 422; Unicode spaces may lead a name, control characters nowhere', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ann');
    for (const name of ['tab\there', 'line\nbreak', '\u001b[31mred', 'del\u007f', 'c1\u0085', '\tleading']) {
      const refused = await t.send('POST', '/api/keys', { cookie, body: { name } });
      expect(refused.status, JSON.stringify(name)).toBe(422);
    }
    for (const name of ['plain', '\u00a0non-breaking lead', 'émoji 🔑'])
      expect((await t.send('POST', '/api/keys', { cookie, body: { name } })).status, name).toBe(201);
    await t.store.close();
  });

  it(`is cleaned by migration ${CLEANING} on SQLite: each control character becomes U+FFFD`, async () => {
    const file = join(scratch, 'names.sqlite');
    const old = new Database(file);
    for (const migration of MIGRATIONS.slice(0, CLEANING - 1)) old.exec(migration);
    old.pragma(`user_version = ${CLEANING - 1}`);
    old.prepare('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)').run('usr_0000000000000001', 'ann', at);
    const insert = old.prepare('INSERT INTO api_keys (id, user_id, digest, hint, name, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    for (const [index, name] of NAMES.entries())
      insert.run(`key_000000000000000${index}`, 'usr_0000000000000001', generateApiKey().digest, 'tka_…aaaa', name, at);
    old.close();
    const store = await openStore({ databasePath: file });
    expect((await store.listKeys('usr_0000000000000001')).map((key) => key.name).sort()).toEqual([...CLEANED].sort());
    await store.close();
  });

  it(`is cleaned by migration ${CLEANING} on PostgreSQL: each control character becomes U+FFFD`, async () => {
    const url = await freshDatabase('key-names');
    await withClient(url, async (client) => {
      await client.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const [index, migration] of POSTGRES_MIGRATIONS.slice(0, CLEANING - 1).entries()) {
        await client.query(migration);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [index + 1]);
      }
      await client.query("INSERT INTO users (id, name, created_at) VALUES ('usr_0000000000000001', 'ann', $1)", [at]);
      for (const [index, name] of NAMES.entries())
        await client.query('INSERT INTO api_keys (id, user_id, digest, hint, name, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          `key_000000000000000${index}`,
          'usr_0000000000000001',
          generateApiKey().digest,
          'tka_…aaaa',
          name,
          at,
        ]);
    });
    const store = await openStore({ databasePath: ':unused:', databaseUrl: url });
    expect((await store.listKeys('usr_0000000000000001')).map((key) => key.name).sort()).toEqual([...CLEANED].sort());
    await store.close();
  });
});

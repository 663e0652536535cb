import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { createApp } from '../../src/server/app.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { requestContract } from '../helpers/contract.js';

const scratch = mkdtempSync(join(tmpdir(), 'migration-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a database made before accounts and expiring keys', () => {
  it('is migrated at startup; its CLI keys keep working, named "CLI key", with no expiry, and their users cannot sign in', async () => {
    const file = join(scratch, 'old.sqlite');
    const old = new Database(file);
    old.exec(MIGRATIONS[0] ?? '');
    old.pragma('user_version = 1');
    const { key, digest, hint } = generateApiKey();
    old.prepare('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)').run('usr_0000000000000001', 'legacy', '2025-06-01T00:00:00.000Z');
    old
      .prepare('INSERT INTO api_keys (id, user_id, digest, hint, created_at) VALUES (?, ?, ?, ?, ?)')
      .run('key_0000000000000001', 'usr_0000000000000001', digest, hint, '2025-06-01T00:00:00.000Z');
    old.close();

    const store = await openStore({ databasePath: file });
    expect(await store.findKey('usr_0000000000000001', 'key_0000000000000001')).toMatchObject({
      name: 'CLI key',
      expiresAt: null,
      rolledAt: null,
      replacedBy: null,
    });
    expect((await store.findUserCredential('legacy'))?.passwordHash).toBeNull();
    const app = createApp({ store, contract: requestContract, logger: { info: () => undefined, error: () => undefined } });
    const response = await app.request('/shared', { headers: { Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect((await store.listKeyEvents('usr_0000000000000001', { limit: 10 })).map((event) => event.type)).toEqual(['first_used']);
    await store.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    raw.close();
  });
});

describe('a database made when failed sign-ins were counted in fixed windows', () => {
  it('keeps each count as an attempt count whose latest attempt is when its window began', async () => {
    const file = join(scratch, 'windows.sqlite');
    const old = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 4)) old.exec(migration);
    old.pragma('user_version = 4');
    old.prepare('INSERT INTO failure_windows (key, start_ms, failures) VALUES (?, ?, ?)').run('account:x', 1_000, 7);
    old.close();

    const store = await openStore({ databasePath: file });
    expect(await store.findAttempts('account:x')).toEqual({ startMs: 1_000, attempts: 7, lastMs: 1_000 });
    await store.close();
  });
});

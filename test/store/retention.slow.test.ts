/**
 * Bounded growth (docs/data.md, "Retention"): under churn that would grow every table without pruning
 * (sign-ins that leave sessions, guesses under ever new names, keys made, revoked and removed), the rows
 * the database holds, and SQLite's file, stay flat after warm-up. Simulated days on a fake clock.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreConfig } from '../../src/config/env.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { openStore } from '../../src/store/open-store.js';
import { pruneOnce, type RetentionRule } from '../../src/store/retention.js';
import type { Store } from '../../src/store/store.js';
import { startServer } from '../../tools/process/server.js';
import { freshDatabase, withClient } from '../helpers/postgres.js';

const scratch = mkdtempSync(join(tmpdir(), 'retention-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DAY = 86_400_000;
const TABLES = ['sessions', 'attempt_counts', 'key_events', 'api_keys'] as const;
const RULE: RetentionRule = { sessionIdleMs: DAY / 2, attemptsForgetMs: DAY / 2, keyHistoryDays: 3 };
const USERS = 10;
const WARM_UP_DAYS = RULE.keyHistoryDays + 2;
const DAYS = WARM_UP_DAYS + 6;

interface Engine {
  name: string;
  config(): Promise<StoreConfig>;
  rows(config: StoreConfig): Promise<Record<(typeof TABLES)[number], number>>;
  /** Bytes on disk, where the engine's own size is meaningful without a VACUUM (SQLite reuses freed pages). */
  bytes?(config: StoreConfig): number;
}

const sqlite: Engine = {
  name: 'SQLite',
  config: async () => ({ databasePath: join(scratch, `churn-${Date.now()}`, 'api.sqlite') }),
  async rows(config) {
    const db = new Database(config.databasePath, { readonly: true });
    try {
      return Object.fromEntries(TABLES.map((table) => [table, db.prepare(`SELECT count(*) AS n FROM ${table}`).pluck().get() as number])) as never;
    } finally {
      db.close();
    }
  },
  bytes(config) {
    const db = new Database(config.databasePath, { readonly: true });
    try {
      return (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    } finally {
      db.close();
    }
  },
};

const postgres: Engine = {
  name: 'PostgreSQL',
  config: async () => ({ databasePath: ':unused:', databaseUrl: await freshDatabase('retention') }),
  rows: (config) =>
    withClient(config.databaseUrl ?? '', async (client) => {
      const counts: Record<string, number> = {};
      for (const table of TABLES) counts[table] = Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
      return counts as never;
    }),
};

/** One simulated day: each user signs in (a session left to expire), a stranger guesses three new names, each user makes a key, revokes it and removes it. */
async function churn(store: Store, users: string[], day: number): Promise<void> {
  const at = (offset: number) => new Date(day * DAY + offset).toISOString();
  for (const userId of users) {
    await store.createSession(userId, randomBytes(32), at(0), at(DAY / 4));
    for (let guess = 0; guess < 3; guess++)
      await store.takeAttempt(`account:${randomBytes(8).toString('hex')}`, day * DAY, {
        free: 5,
        backoffMs: 1000,
        maxBackoffMs: 60_000,
        forgetMs: RULE.attemptsForgetMs,
      });
    const { digest, hint } = generateApiKey();
    const key = await store.createKey(userId, digest, hint, at(1), { source: 'web' });
    await store.revokeKey(key.id, at(2), { userId, source: 'web' });
    await store.removeKey(userId, key.id, at(3));
  }
}

describe.each([sqlite, postgres])('the database on $name under churn', (engine) => {
  it('holds as many rows after warm-up as at its end, day after day, and SQLite no more bytes', async () => {
    const config = await engine.config();
    const store = await openStore(config);
    try {
      const users: string[] = [];
      for (let index = 0; index < USERS; index++) users.push((await store.createUser(`user${index}`, new Date(0).toISOString())).id);
      const afterDay: Array<Record<string, number>> = [];
      const bytes: number[] = [];
      for (let day = 1; day <= DAYS; day++) {
        await churn(store, users, day);
        await pruneOnce(store, RULE, (day + 1) * DAY);
        afterDay.push(await engine.rows(config));
        if (engine.bytes) bytes.push(engine.bytes(config));
      }
      const warm = afterDay[WARM_UP_DAYS - 1];
      // Without pruning every table would have grown by USERS (or 3 × USERS) rows a day.
      for (const counts of afterDay.slice(WARM_UP_DAYS)) expect(counts).toEqual(warm);
      expect(warm).toEqual({ sessions: 0, attempt_counts: 0, key_events: 2 * USERS * RULE.keyHistoryDays, api_keys: USERS * RULE.keyHistoryDays });
      if (bytes.length > 0) {
        const warmBytes = bytes[WARM_UP_DAYS - 1] ?? 0;
        expect(Math.max(...bytes.slice(WARM_UP_DAYS))).toBeLessThanOrEqual(warmBytes + 8 * 4096);
      }
    } finally {
      await store.close();
    }
  });
});

describe('the server', () => {
  it('prunes at start: ended sessions, forgotten attempt counts, key history older than KEY_EVENTS_RETENTION_DAYS', async () => {
    const config = await sqlite.config();
    const store = await openStore(config);
    const old = Date.now() - 40 * DAY;
    const at = (ms: number) => new Date(ms).toISOString();
    const user = await store.createUser('ann', at(old));
    const { digest, hint } = generateApiKey();
    const gone = await store.createKey(user.id, digest, hint, at(old), { source: 'web' });
    await store.revokeKey(gone.id, at(old + 1), { source: 'web' });
    await store.removeKey(user.id, gone.id, at(old + 2));
    const kept = generateApiKey();
    await store.createKey(user.id, kept.digest, kept.hint, at(Date.now()), { source: 'web' });
    await store.createSession(user.id, randomBytes(32), at(old), at(old + DAY));
    await store.takeAttempt('account:x', old, { free: 5, backoffMs: 1000, maxBackoffMs: 60_000, forgetMs: DAY });
    await store.close();
    expect(await sqlite.rows(config)).toEqual({ sessions: 1, attempt_counts: 1, key_events: 3, api_keys: 2 });

    const server = await startServer({ databasePath: config.databasePath, env: { KEY_EVENTS_RETENTION_DAYS: '30' } });
    try {
      await expect.poll(() => server.stdout(), { timeout: 10_000 }).toMatch(/"msg":"pruned"/);
      expect(server.stdout()).toMatch(/"sessions":1,"attempts":1,"budgets":0,"keyEvents":2,"removedKeys":1,"keyEventsRetentionDays":30/);
    } finally {
      await server.stop();
    }
    expect(await sqlite.rows(config)).toEqual({ sessions: 0, attempt_counts: 0, key_events: 1, api_keys: 1 });
  });
});

describe.each([sqlite, postgres])('key history on $name, years of it at once', (engine) => {
  it('is deleted in batches, every row of it, rolled keys naming deleted ones included', async () => {
    const config = await engine.config();
    const store = await openStore(config);
    await store.close();
    const old = '2020-01-01T00:00:00.000Z';
    // 12,001 removed keys, each with two events, each but the first naming the key before it as replaced.
    const keys = 12_001;
    const rows = `WITH n AS (SELECT i FROM ${config.databaseUrl ? 'generate_series(1, 12001) AS g(i)' : '(WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 12001) SELECT i FROM c)'})`;
    const statements = [
      `INSERT INTO users (id, name, created_at) VALUES ('usr_0000000000000001', 'ann', '${old}')`,
      `${rows} INSERT INTO api_keys (id, user_id, digest, hint, created_at, revoked_at, removed_at, replaced_by)
         SELECT 'key_' || i, 'usr_0000000000000001', ${config.databaseUrl ? "decode(md5(i::text), 'hex')" : "CAST(printf('%032d', i) AS BLOB)"}, 'tka_…', '${old}', '${old}', '${old}', NULL FROM n`,
      `UPDATE api_keys SET replaced_by = 'key_' || (CAST(substr(id, 5) AS INTEGER) + 1) WHERE CAST(substr(id, 5) AS INTEGER) < ${keys}`,
      `${rows} INSERT INTO key_events (id, key_id, user_id, type, source, at) SELECT 'evt_c' || i, 'key_' || i, 'usr_0000000000000001', 'created', 'web', '${old}' FROM n`,
      `${rows} INSERT INTO key_events (id, key_id, user_id, type, source, at) SELECT 'evt_r' || i, 'key_' || i, 'usr_0000000000000001', 'revoked', 'web', '${old}' FROM n`,
    ];
    if (config.databaseUrl)
      await withClient(config.databaseUrl, async (client) => {
        for (const statement of statements) await client.query(statement);
      });
    else {
      const db = new Database(config.databasePath);
      for (const statement of statements) db.exec(statement);
      db.close();
    }
    const reopened = await openStore(config);
    try {
      expect(await reopened.deleteKeyHistoryBefore('2021-01-01T00:00:00.000Z')).toEqual({ events: 2 * keys, keys });
    } finally {
      await reopened.close();
    }
    expect(await engine.rows(config)).toEqual({ sessions: 0, attempt_counts: 0, key_events: 0, api_keys: 0 });
  });
});

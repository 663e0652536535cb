import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PostgresSettings } from '../config/env.js';
import type { Item, Sort } from '../contract/types.js';
import { newId } from './ids.js';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import { type SessionColumns, type SessionRow, selectList, toSession } from './rows.js';
import { COMPATIBILITY_TABLE, oldestCodeFor, planFor } from './schema-policy.js';
import {
  ActiveKeyLimitReached,
  type AttemptCount,
  type AttemptRule,
  CredentialChanged,
  type KeyCredential,
  type KeyEvent,
  type KeyPosition,
  type KeyRoll,
  type KeySource,
  type KeySummary,
  type ListScope,
  MAX_DOUBLINGS,
  type NewKeyOptions,
  notSecret,
  type PageQuery,
  type PasswordChange,
  type QuotaLease,
  type QuotaRequest,
  type SessionRecord,
  type Store,
  type StoreStats,
  StoreUnavailable,
  UnstorableInput,
  type User,
  type UserCredential,
} from './store.js';

export const DEFAULT_POSTGRES_SETTINGS: PostgresSettings = { poolSize: 10, connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 };

/** Any 64-bit number will do as long as every instance uses the same one: `migrate` holds it while it runs. */
const MIGRATION_LOCK = 7_406_211_923_001;

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Where each field lives, typed against the generated and port types as in `sqlite-store.ts`; timestamps read back as RFC 3339 text. */
const ITEM_COLUMNS = { id: 'i.id', title: 'i.title', ownerId: 'i.owner_id', createdAt: iso('i.created_at') } as const satisfies Record<keyof Item, string>;
const KEY_SUMMARY_COLUMNS = {
  id: 'id',
  userId: 'user_id',
  name: 'name',
  hint: 'hint',
  createdAt: iso('created_at'),
  lastUsedAt: iso('last_used_at'),
  expiresAt: iso('expires_at'),
  revokedAt: iso('revoked_at'),
  rolledAt: iso('rolled_at'),
  replacedBy: 'replaced_by',
} as const satisfies Record<keyof KeySummary, string>;
const KEY_CREDENTIAL_COLUMNS = {
  id: 'id',
  userId: 'user_id',
  revokedAt: iso('revoked_at'),
  lastUsedAt: iso('last_used_at'),
  expiresAt: iso('expires_at'),
  rolledAt: iso('rolled_at'),
} as const satisfies Record<keyof KeyCredential, string>;
const USER_COLUMNS = { id: 'id', name: 'name', createdAt: iso('created_at') } as const satisfies Record<keyof User, string>;
const KEY_EVENT_COLUMNS = {
  id: 'e.id',
  type: 'e.type',
  at: iso('e.at'),
  source: 'e.source',
  keyId: 'e.key_id',
  keyName: 'k.name',
  keyHint: 'k.hint',
} as const satisfies Record<keyof KeyEvent, string>;
/** A session row joined with its user, flat; `toSession` nests the user. */
const SESSION_COLUMNS = {
  id: 's.id',
  createdAt: iso('s.created_at'),
  lastSeenAt: iso('s.last_seen_at'),
  expiresAt: iso('s.expires_at'),
  userId: 'u.id',
  userName: 'u.name',
  userCreatedAt: iso('u.created_at'),
} as const satisfies SessionColumns;

/** SQLSTATE classes and codes that mean "the database is not there right now", not "the query is wrong". */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|57014|53000|58000|58030|55P03)$/;
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|Client has encountered a connection error|Connection ended|not queryable|Cannot use a pool after calling end/i;

/** True when an error from `pg` means the database cannot be reached or answer in time. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code))) return true;
  return UNAVAILABLE_MESSAGES.test(error.message);
}

/**
 * SQLSTATE class 22, "data exception": the database cannot take a value it was given (a U+0000 in a text, a
 * time it cannot read or hold, a number out of range). Only a request's input gets that far.
 */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/** True when an error from `pg` means the database refused a value rather than failed. */
export function isDataException(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && DATA_EXCEPTION.test(code);
}

/**
 * A `pg` error as the port's: `StoreUnavailable` when the database is away, `UnstorableInput` when it refused
 * a value (its message names the SQLSTATE, never the value), else unchanged.
 */
export function translateError(error: unknown): unknown {
  if (error instanceof StoreUnavailable || error instanceof UnstorableInput) return error;
  if (isDataException(error)) return new UnstorableInput(`the database refused a value (SQLSTATE ${(error as { code: string }).code})`, { cause: error });
  if (!isUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailable(`the database is unavailable: ${reason}`, { cause: error });
}

/**
 * When PostgreSQL refused the connection for what `DATABASE_URL` says (a database that does not exist, a
 * user or password it does not take), the sentence that tells the operator which; undefined for anything
 * else (the database being away is not a configuration error: startup waits for it). Never the password.
 */
export function connectionRefusedByConfiguration(error: unknown, url: string): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || 'the default';
  switch (code) {
    case '3D000':
      return `DATABASE_URL names the database ${JSON.stringify(database)}, which does not exist on that server: create it (createdb ${database}) or correct the URL`;
    case '28P01':
    case '28000':
      return `DATABASE_URL's user ${JSON.stringify(decodeURIComponent(parsed.username))} was refused by the server (${(error as Error).message}): correct the user or password`;
    default:
      return undefined;
  }
}

/** A pool on `url` with the settings' size and timeouts; idle connections that break are dropped, not thrown. */
export function createPool(url: string, settings: PostgresSettings, applicationName: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    // The server stops a statement after this; the client gives up a little later (a cut network never answers).
    statement_timeout: settings.statementTimeoutMs,
    query_timeout: settings.statementTimeoutMs + 1_000,
    keepAlive: true,
    application_name: applicationName,
  });
  // An idle connection that dies (database restart) emits 'error' on the pool; the pool drops it. Unhandled, it would end the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Applies pending migrations in one transaction under a transaction-level advisory lock: instances started
 * together queue on the lock, and each finds the work done by the first. A database from newer code is served as
 * is when it says this code still runs on it, else refused with `SchemaTooNew` (schema-policy.ts).
 */
export async function migrate(pool: pg.Pool): Promise<void> {
  // The first contact with the database: a refused connection here is "not there yet" (startup retries), not a crash.
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translateError(error);
  }
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ applied: number }>('SELECT coalesce(max(version), 0)::int AS applied FROM schema_migrations');
    const applied = rows[0]?.applied ?? 0;
    await client.query(`CREATE TABLE IF NOT EXISTS ${COMPATIBILITY_TABLE} (oldest_code integer NOT NULL)`);
    const recorded = (await client.query<{ oldest: number }>(`SELECT oldest_code AS oldest FROM ${COMPATIBILITY_TABLE}`)).rows[0]?.oldest;
    if (planFor(applied, recorded) === 'migrate') {
      for (let version = applied; version < POSTGRES_MIGRATIONS.length; version++) {
        await client.query(POSTGRES_MIGRATIONS[version] ?? '');
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version + 1]);
      }
      const oldest = oldestCodeFor(POSTGRES_MIGRATIONS.length);
      if (recorded !== oldest) {
        await client.query(`DELETE FROM ${COMPATIBILITY_TABLE}`);
        await client.query(`INSERT INTO ${COMPATIBILITY_TABLE} (oldest_code) VALUES ($1)`, [oldest]);
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw translateError(error);
  } finally {
    client.release();
  }
}

/** Rows of key history deleted per statement (`deleteKeyHistoryBefore`). */
const HISTORY_BATCH = 5_000;

/** The list queries, one per scope, direction and start, each a named prepared statement. */
function listQueries() {
  const make = (scope: ListScope, sort: Sort, after: boolean) => {
    const direction = sort === 'asc' ? 'ASC' : 'DESC';
    const comparison = sort === 'asc' ? '>' : '<';
    const start = after ? `AND (i.created_at, i.id) ${comparison} ($3::timestamptz, $4)` : '';
    const text =
      scope === 'own'
        ? `SELECT ${selectList(ITEM_COLUMNS)} FROM items i WHERE i.owner_id = $1 ${start}
           ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT $2`
        : `SELECT ${selectList(ITEM_COLUMNS)} FROM shares s JOIN items i ON i.id = s.item_id
           WHERE s.user_id = $1 AND i.owner_id <> s.user_id ${start}
           ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT $2`;
    return { name: `list-${scope}-${sort}-${after ? 'after' : 'first'}`, text };
  };
  const byScope = (scope: ListScope) => ({
    asc: { first: make(scope, 'asc', false), after: make(scope, 'asc', true) },
    desc: { first: make(scope, 'desc', false), after: make(scope, 'desc', true) },
  });
  return { own: byScope('own'), shared: byScope('shared') };
}

const LIST = listQueries();
/** Keys of a user that are neither revoked nor expired at a moment. */
const COUNT_ACTIVE_KEYS =
  'SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2::timestamptz)';
const FIND_KEY = { name: 'find-key', text: `SELECT ${selectList(KEY_CREDENTIAL_COLUMNS)} FROM api_keys WHERE digest = $1` };
/** The last-use time, and the key's `first_used` event the first time: one statement, so one round trip and atomic. */
const TOUCH_KEY = {
  name: 'touch-key',
  text: `WITH key AS (SELECT id, user_id, last_used_at FROM api_keys WHERE id = $2 FOR UPDATE),
              touched AS (UPDATE api_keys SET last_used_at = $1 WHERE id = $2)
         INSERT INTO key_events (id, key_id, user_id, type, source, at)
         SELECT $3, id, user_id, 'first_used', 'api', $1 FROM key WHERE last_used_at IS NULL
         ON CONFLICT (key_id, type) DO NOTHING`,
};
const FIND_SESSION = {
  name: 'find-session',
  // A session started under a credential version the user has left (a password change since) is not found.
  text: `SELECT ${selectList(SESSION_COLUMNS)} FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.digest = $1 AND (s.credential_version IS NULL OR s.credential_version = u.credential_version)`,
};
/** Each kind of event happens at most once per key (UNIQUE (key_id, type)); a repeat is ignored. */
const INSERT_EVENT = 'INSERT INTO key_events (id, key_id, user_id, type, source, at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key_id, type) DO NOTHING';
const LEASE_QUOTA = { name: 'lease-quota', text: 'SELECT granted, used, reset_ms::float8 AS "resetMs" FROM lease_quota($1, $2, $3, $4)' };

/**
 * The store's queries on a connection pool. The hot ones (key lookup, pages,
 * touches, quota leases) are named prepared statements: parsed and planned once
 * per connection. No caching here (see `cached-store.ts`), and no NOTIFY either:
 * the schema's triggers send it in the writing transaction.
 */
export class PostgresStore implements Store {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async #query<Row extends pg.QueryResultRow>(query: string | pg.QueryConfig, values?: unknown[]): Promise<Row[]> {
    try {
      const result =
        typeof query === 'string' ? await this.#pool.query<Row>(query, values) : await this.#pool.query<Row>({ ...query, ...(values && { values }) });
      return result.rows;
    } catch (error) {
      throw translateError(error);
    }
  }

  /** Runs `work` on one connection inside a transaction; rolls back on any error. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw translateError(error);
    }
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw translateError(error);
    } finally {
      client.release();
    }
  }

  async findKeyByDigest(digest: Buffer): Promise<KeyCredential | undefined> {
    return (await this.#query<KeyCredential>(FIND_KEY, [digest]))[0];
  }

  async touchKey(keyId: string, at: string): Promise<void> {
    await this.#query(TOUCH_KEY, [at, keyId, newId('evt')]);
  }

  async #insertKey(client: pg.PoolClient, userId: string, digest: Buffer, hint: string, at: string, options: NewKeyOptions): Promise<KeySummary> {
    const id = newId('key');
    const name = options.name ?? 'CLI key';
    const expiresAt = options.expiresAt ?? null;
    await client.query('INSERT INTO api_keys (id, user_id, digest, hint, name, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      id,
      userId,
      digest,
      hint,
      name,
      at,
      expiresAt,
    ]);
    await client.query(INSERT_EVENT, [newId('evt'), id, userId, 'created', options.source ?? 'cli', at]);
    return { id, userId, name, hint, createdAt: at, lastUsedAt: null, expiresAt, revokedAt: null, rolledAt: null, replacedBy: null };
  }

  async createKey(userId: string, digest: Buffer, hint: string, at: string, options: NewKeyOptions = {}): Promise<KeySummary> {
    return this.#transaction(async (client) => {
      if (options.maxActive !== undefined) {
        // The user's row, locked until this transaction ends: creates for one user on every instance queue here,
        // so each counts the keys the one before it made. NO KEY UPDATE leaves the row's foreign keys free (a
        // session insert for the user does not wait).
        await client.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
        const { rows } = await client.query<{ n: number }>(COUNT_ACTIVE_KEYS, [userId, at]);
        const active = rows[0]?.n ?? 0;
        if (active >= options.maxActive) throw new ActiveKeyLimitReached(active);
      }
      return this.#insertKey(client, userId, digest, hint, at, options);
    });
  }

  async listKeys(userId: string): Promise<KeySummary[]> {
    return this.#query<KeySummary>(`SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  }

  async listKeyPage(userId: string, query: { asOf: string; limit: number; after?: KeyPosition }): Promise<KeySummary[]> {
    // After a position: the keys of its group that sort after it, and every inactive key after an active one.
    const start = query.after
      ? `AND ((k.active = $4 AND (k.sort_at < $5::timestamptz OR (k.sort_at = $5::timestamptz AND k.id < $6))) OR ($4 AND NOT k.active))`
      : '';
    const rows = await this.#query<KeySummary & { active: boolean; sort_at: unknown }>(
      `SELECT * FROM (
         SELECT ${selectList(KEY_SUMMARY_COLUMNS)}, created_at AS sort_at,
                (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2::timestamptz)) AS active
         FROM api_keys WHERE user_id = $1 AND removed_at IS NULL
       ) k
       WHERE true ${start}
       ORDER BY k.active DESC, k.sort_at DESC, k.id DESC LIMIT $3`,
      query.after ? [userId, query.asOf, query.limit, query.after.active, query.after.createdAt, query.after.id] : [userId, query.asOf, query.limit],
    );
    return rows.map(({ active: _active, sort_at: _sortAt, ...key }) => key);
  }

  async findKey(userId: string, keyId: string): Promise<KeySummary | undefined> {
    return (
      await this.#query<KeySummary>(`SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys WHERE id = $1 AND user_id = $2 AND removed_at IS NULL`, [
        keyId,
        userId,
      ])
    )[0];
  }

  async countActiveKeys(userId: string, at: string): Promise<number> {
    const rows = await this.#query<{ n: number }>(COUNT_ACTIVE_KEYS, [userId, at]);
    return rows[0]?.n ?? 0;
  }

  async removeKey(userId: string, keyId: string, at: string): Promise<'removed' | 'active' | undefined> {
    // One statement: the key is read under its row lock and, when it no longer works, removed (a data-modifying
    // WITH runs whether or not the SELECT reads it).
    const rows = await this.#query<{ active: boolean }>(
      `WITH key AS (
         SELECT id, (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3::timestamptz)) AS active
         FROM api_keys WHERE id = $1 AND user_id = $2 AND removed_at IS NULL FOR UPDATE
       ), removed AS (
         UPDATE api_keys SET removed_at = $3 WHERE id = (SELECT id FROM key WHERE NOT active)
       )
       SELECT active FROM key`,
      [keyId, userId, at],
    );
    const row = rows[0];
    if (!row) return undefined;
    return row.active ? 'active' : 'removed';
  }

  async revokeKey(keyId: string, at: string, options: { userId?: string; source?: KeySource } = {}): Promise<boolean> {
    return this.#transaction(async (client) => {
      const { rows } = await client.query<{ userId: string }>(
        'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL AND ($3::text IS NULL OR user_id = $3) RETURNING user_id AS "userId"',
        [keyId, at, options.userId ?? null],
      );
      const key = rows[0];
      if (!key) return false;
      await client.query(INSERT_EVENT, [newId('evt'), keyId, key.userId, 'revoked', options.source ?? 'cli', at]);
      return true;
    });
  }

  async rollKey(roll: KeyRoll): Promise<{ previous: KeySummary; next: KeySummary } | undefined> {
    return this.#transaction(async (client) => {
      const { rows } = await client.query<KeySummary>(
        `SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys
         WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL AND rolled_at IS NULL AND (expires_at IS NULL OR expires_at > $3::timestamptz)
         FOR UPDATE`,
        [roll.keyId, roll.userId, roll.at],
      );
      const previous = rows[0];
      if (!previous) return undefined;
      const next = await this.#insertKey(client, roll.userId, roll.next.digest, roll.next.hint, roll.at, {
        name: previous.name,
        expiresAt: roll.next.expiresAt,
        source: roll.source,
      });
      // The old key never outlives its own expiry, whatever the overlap.
      const previousExpiresAt = previous.expiresAt !== null && previous.expiresAt < roll.previousExpiresAt ? previous.expiresAt : roll.previousExpiresAt;
      await client.query('UPDATE api_keys SET rolled_at = $1, replaced_by = $2, expires_at = $3 WHERE id = $4', [
        roll.at,
        next.id,
        previousExpiresAt,
        previous.id,
      ]);
      await client.query(INSERT_EVENT, [newId('evt'), previous.id, roll.userId, 'rolled', roll.source, roll.at]);
      return { previous: { ...previous, rolledAt: roll.at, replacedBy: next.id, expiresAt: previousExpiresAt }, next };
    });
  }

  async recordExpiries(userId: string, at: string): Promise<void> {
    const expired = await this.#query<{ id: string; expiresAt: string }>(
      `SELECT k.id, ${iso('k.expires_at')} AS "expiresAt" FROM api_keys k
       WHERE k.user_id = $1 AND k.revoked_at IS NULL AND k.expires_at IS NOT NULL AND k.expires_at <= $2::timestamptz
         AND NOT EXISTS (SELECT 1 FROM key_events e WHERE e.key_id = k.id AND e.type = 'expired')`,
      [userId, at],
    );
    if (expired.length === 0) return;
    await this.#query(
      `INSERT INTO key_events (id, key_id, user_id, type, source, at)
       SELECT event_id, key_id, $1, 'expired', 'system', at FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS e(event_id, key_id, at)
       ON CONFLICT (key_id, type) DO NOTHING`,
      [userId, expired.map(() => newId('evt')), expired.map((key) => key.id), expired.map((key) => key.expiresAt)],
    );
  }

  async listKeyEvents(userId: string, query: { limit: number; before?: { at: string; id: string } }): Promise<KeyEvent[]> {
    const start = query.before ? 'AND (e.at < $3::timestamptz OR (e.at = $3::timestamptz AND e.id < $4))' : '';
    return this.#query<KeyEvent>(
      `SELECT ${selectList(KEY_EVENT_COLUMNS)} FROM key_events e JOIN api_keys k ON k.id = e.key_id
       WHERE e.user_id = $1 ${start} ORDER BY e.at DESC, e.id DESC LIMIT $2`,
      query.before ? [userId, query.limit, query.before.at, query.before.id] : [userId, query.limit],
    );
  }

  async createUser(name: string, at: string, passwordHash?: string): Promise<User> {
    const id = newId('usr');
    await this.#query('INSERT INTO users (id, name, created_at, password_hash) VALUES ($1, $2, $3, $4)', [id, name, at, passwordHash ?? null]);
    return { id, name, createdAt: at };
  }

  async findUserCredential(name: string): Promise<UserCredential | undefined> {
    const rows = await this.#query<User & { passwordHash: string | null; credentialVersion: number }>(
      `SELECT ${selectList(USER_COLUMNS)}, password_hash AS "passwordHash", credential_version AS "credentialVersion" FROM users WHERE name = $1`,
      [name],
    );
    const row = rows[0];
    if (!row) return undefined;
    const { passwordHash, credentialVersion, ...user } = row;
    return { user, passwordHash, credentialVersion };
  }

  async setPasswordHash(userId: string, passwordHash: string, credentialVersion?: number): Promise<boolean> {
    const rows = await this.#query('UPDATE users SET password_hash = $1 WHERE id = $2 AND ($3::integer IS NULL OR credential_version = $3) RETURNING id', [
      passwordHash,
      userId,
      credentialVersion ?? null,
    ]);
    return rows.length === 1;
  }

  async changePassword(change: {
    userId: string;
    passwordHash: string;
    keepSessionId: string;
    revokeKeys?: { at: string; source: KeySource };
  }): Promise<PasswordChange> {
    const { userId, passwordHash, keepSessionId, revokeKeys } = change;
    return this.#transaction(async (client) => {
      // The user's row stays locked until commit: a session insert under the old version waits for it, then finds
      // the version changed (createSession); one that took its share lock first is committed before this update
      // goes on, so the delete below (a later statement, a later snapshot) sees and ends it.
      const bumped = await client.query<{ credentialVersion: number }>(
        'UPDATE users SET password_hash = $2, credential_version = credential_version + 1 WHERE id = $1 RETURNING credential_version AS "credentialVersion"',
        [userId, passwordHash],
      );
      const credentialVersion = bumped.rows[0]?.credentialVersion;
      if (credentialVersion === undefined) throw new Error(`no user ${userId}`);
      const ended = await client.query('DELETE FROM sessions WHERE user_id = $1 AND id <> $2 RETURNING id', [userId, keepSessionId]);
      await client.query('UPDATE sessions SET credential_version = $3 WHERE id = $2 AND user_id = $1', [userId, keepSessionId, credentialVersion]);
      let keysRevoked = 0;
      if (revokeKeys) {
        const revoked = await client.query<{ id: string }>(
          `UPDATE api_keys SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2::timestamptz) RETURNING id`,
          [userId, revokeKeys.at],
        );
        for (const { id } of revoked.rows) await client.query(INSERT_EVENT, [newId('evt'), id, userId, 'revoked', revokeKeys.source, revokeKeys.at]);
        keysRevoked = revoked.rows.length;
      }
      return { credentialVersion, sessionsEnded: ended.rows.length, keysRevoked };
    });
  }

  async createSession(userId: string, digest: Buffer, at: string, expiresAt: string, credentialVersion?: number): Promise<SessionRecord> {
    const id = newId('ses');
    // FOR SHARE: a password change that holds the user's row makes this wait, then look again at the row it
    // committed, whose version is no longer the one asked for: no session. One statement, one round trip.
    const rows = await this.#query<User & { credentialVersion: number }>(
      `WITH u AS (
         SELECT id, name, created_at, credential_version FROM users WHERE id = $2 AND ($6::integer IS NULL OR credential_version = $6) FOR SHARE
       ), s AS (
         INSERT INTO sessions (id, user_id, digest, created_at, last_seen_at, expires_at, credential_version)
         SELECT $1, u.id, $3, $4, $4, $5, u.credential_version FROM u RETURNING user_id
       )
       SELECT ${selectList(USER_COLUMNS)}, credential_version AS "credentialVersion" FROM u WHERE EXISTS (SELECT 1 FROM s)`,
      [id, userId, digest, at, expiresAt, credentialVersion ?? null],
    );
    const row = rows[0];
    if (!row) {
      if (credentialVersion !== undefined && (await this.#query('SELECT 1 FROM users WHERE id = $1', [userId])).length === 1)
        throw new CredentialChanged(userId);
      throw new Error(`no user ${userId}`);
    }
    const { credentialVersion: _version, ...user } = row;
    return { id, user, createdAt: at, lastSeenAt: at, expiresAt };
  }

  async findSessionByDigest(digest: Buffer): Promise<SessionRecord | undefined> {
    const row = (await this.#query<SessionRow>(FIND_SESSION, [digest]))[0];
    return row && toSession(row);
  }

  async touchSession(sessionId: string, at: string): Promise<void> {
    await this.#query('UPDATE sessions SET last_seen_at = $1 WHERE id = $2 AND last_seen_at < $1::timestamptz', [at, sessionId]);
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    return (await this.#query('DELETE FROM sessions WHERE id = $1 RETURNING id', [sessionId])).length === 1;
  }

  async deleteEndedSessions(at: string, idleBefore: string): Promise<number> {
    const rows = await this.#query('DELETE FROM sessions WHERE expires_at <= $1::timestamptz OR last_seen_at < $2::timestamptz RETURNING id', [at, idleBefore]);
    return rows.length;
  }

  async listSessions(userId: string, query: { at: string; idleBefore: string; limit: number }): Promise<SessionRecord[]> {
    const rows = await this.#query<SessionRow>(
      `SELECT ${selectList(SESSION_COLUMNS)} FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.user_id = $1 AND s.expires_at > $2::timestamptz AND s.last_seen_at > $3::timestamptz ORDER BY s.created_at DESC, s.id DESC LIMIT $4`,
      [userId, query.at, query.idleBefore, query.limit],
    );
    return rows.map(toSession);
  }

  async deleteUserSession(userId: string, sessionId: string): Promise<boolean> {
    return (await this.#query('DELETE FROM sessions WHERE id = $1 AND user_id = $2 RETURNING id', [sessionId, userId])).length === 1;
  }

  async deleteOtherSessions(userId: string, keepSessionId: string): Promise<number> {
    return (await this.#query('DELETE FROM sessions WHERE user_id = $1 AND id <> $2 RETURNING id', [userId, keepSessionId])).length;
  }

  async findUserByName(name: string): Promise<User | undefined> {
    return (await this.#query<User>(`SELECT ${selectList(USER_COLUMNS)} FROM users WHERE name = $1`, [name]))[0];
  }

  async countUsers(): Promise<number> {
    return (await this.#query<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]?.n ?? 0;
  }

  async createItem(ownerId: string, title: string, createdAt: string): Promise<Item> {
    const id = newId('itm');
    await this.#query('INSERT INTO items (id, owner_id, title, created_at) VALUES ($1, $2, $3, $4)', [id, ownerId, title, createdAt]);
    return { id, title, ownerId, createdAt };
  }

  async shareItem(itemId: string, withUserId: string, at: string): Promise<void> {
    const item = (await this.#query<{ ownerId: string }>('SELECT owner_id AS "ownerId" FROM items WHERE id = $1', [itemId]))[0];
    if (!item) throw new Error(`no item ${itemId}`);
    if (item.ownerId === withUserId) throw new Error('an item cannot be shared with its owner');
    await this.#query('INSERT INTO shares (user_id, item_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [withUserId, itemId, at]);
  }

  async listItems(scope: ListScope, query: PageQuery): Promise<Item[]> {
    const statements = LIST[scope][query.sort];
    return query.after
      ? this.#query<Item>(statements.after, [query.userId, query.limit, query.after.createdAt, query.after.id])
      : this.#query<Item>(statements.first, [query.userId, query.limit]);
  }

  async findVisibleItem(itemId: string, userId: string): Promise<Item | undefined> {
    const rows = await this.#query<Item>(
      `SELECT ${selectList(ITEM_COLUMNS)} FROM items i
       WHERE i.id = $1 AND (i.owner_id = $2 OR EXISTS (SELECT 1 FROM shares s WHERE s.item_id = i.id AND s.user_id = $2))`,
      [itemId, userId],
    );
    return rows[0];
  }

  async leaseQuota(keyId: string, request: QuotaRequest): Promise<QuotaLease> {
    const row = (await this.#query<QuotaLease>(LEASE_QUOTA, [keyId, request.limit, request.windowMs, request.want]))[0];
    if (!row) throw new Error('lease_quota returned no row');
    return row;
  }

  async takeAttempt(key: string, atMs: number, rule: AttemptRule): Promise<AttemptCount | undefined> {
    // One statement under the row's lock: instances taking attempts at once each see the others' count; a refused
    // attempt changes nothing and returns no row; a forgotten count starts again at `atMs`.
    const rows = await this.#query<{ startMs: string; attempts: number; lastMs: string }>(
      `INSERT INTO attempt_counts AS a (key, start_ms, attempts, last_ms) VALUES ($1, $2, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         start_ms = CASE WHEN $2 - a.last_ms >= $6 THEN $2 ELSE a.start_ms END,
         attempts = CASE WHEN $2 - a.last_ms >= $6 THEN 1 ELSE a.attempts + 1 END,
         last_ms = $2
       WHERE $2 - a.last_ms >= $6 OR a.attempts < $3
         OR $2 - a.last_ms >= least($5::bigint, $4::bigint << least(greatest(a.attempts - $3, 0), $7::integer))
       RETURNING start_ms AS "startMs", attempts, last_ms AS "lastMs"`,
      [key, atMs, rule.free, rule.backoffMs, rule.maxBackoffMs, rule.forgetMs, MAX_DOUBLINGS],
    );
    const row = rows[0];
    return row && { startMs: Number(row.startMs), attempts: row.attempts, lastMs: Number(row.lastMs) };
  }

  async releaseAttempt(key: string): Promise<void> {
    await this.#query('UPDATE attempt_counts SET attempts = attempts - 1 WHERE key = $1 AND attempts > 0', [key]);
  }

  async findAttempts(key: string): Promise<AttemptCount | undefined> {
    const row = (
      await this.#query<{ startMs: string; attempts: number; lastMs: string }>(
        'SELECT start_ms AS "startMs", attempts, last_ms AS "lastMs" FROM attempt_counts WHERE key = $1',
        [key],
      )
    )[0];
    return row && { startMs: Number(row.startMs), attempts: row.attempts, lastMs: Number(row.lastMs) };
  }

  async clearAttempts(key: string): Promise<void> {
    await this.#query('DELETE FROM attempt_counts WHERE key = $1', [key]);
  }

  async deleteKeyHistoryBefore(before: string): Promise<{ events: number; keys: number }> {
    // In batches, each a short statement: a first pass over years of history stays within the statement timeout.
    let events = 0;
    let keys = 0;
    for (let batch = HISTORY_BATCH; batch === HISTORY_BATCH; events += batch)
      batch = (await this.#query(`DELETE FROM key_events WHERE id IN (SELECT id FROM key_events WHERE at < $1 LIMIT ${HISTORY_BATCH}) RETURNING 1`, [before]))
        .length;
    for (let batch = HISTORY_BATCH; batch === HISTORY_BATCH; keys += batch)
      batch = await this.#transaction(async (client) => {
        const ids = `SELECT id FROM api_keys WHERE removed_at < $1 ORDER BY removed_at, id LIMIT ${HISTORY_BATCH}`;
        // A newer key may name a removed one it replaced; it forgets the name, not itself.
        await client.query(`UPDATE api_keys SET replaced_by = NULL WHERE replaced_by IN (${ids})`, [before]);
        return (await client.query(`DELETE FROM api_keys WHERE id IN (${ids})`, [before])).rowCount ?? 0;
      });
    return { events, keys };
  }

  async deleteAttemptsBefore(beforeMs: number, prefix: string): Promise<number> {
    return (await this.#query<{ key: string }>('DELETE FROM attempt_counts WHERE last_ms < $1 AND starts_with(key, $2) RETURNING key', [beforeMs, prefix]))
      .length;
  }

  async readMeta(key: string): Promise<Buffer | undefined> {
    return (await this.#query<{ value: Buffer }>('SELECT value FROM meta WHERE key = $1', [notSecret(key)]))[0]?.value;
  }

  async writeMeta(key: string, value: Buffer): Promise<void> {
    await this.#query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [notSecret(key), value]);
  }

  async secret(name: string): Promise<Buffer> {
    // Insert-if-absent, then read: instances starting at once agree on one secret.
    await this.#query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [`secret:${name}`, randomBytes(32)]);
    const row = (await this.#query<{ value: Buffer }>('SELECT value FROM meta WHERE key = $1', [`secret:${name}`]))[0];
    if (!row) throw new Error(`secret ${name} vanished`);
    return row.value;
  }

  async ping(): Promise<void> {
    await this.#query('SELECT 1');
  }

  stats(): StoreStats {
    const pool = this.#pool;
    return { pool: { max: pool.options.max ?? 10, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } };
  }

  async close(): Promise<void> {
    if (!this.#pool.ended && !this.#pool.ending) await this.#pool.end();
  }
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PostgresSettings } from '../config/env.js';
import type { Item, Sort } from '../contract/types.js';
import { newId } from './ids.js';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import {
  type KeyCredential,
  type KeySummary,
  type ListScope,
  type PageQuery,
  type QuotaLease,
  type QuotaRequest,
  type Store,
  StoreUnavailable,
  type User,
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
  hint: 'hint',
  createdAt: iso('created_at'),
  lastUsedAt: iso('last_used_at'),
  revokedAt: iso('revoked_at'),
} as const satisfies Record<keyof KeySummary, string>;
const KEY_CREDENTIAL_COLUMNS = { id: 'id', userId: 'user_id', revokedAt: iso('revoked_at'), lastUsedAt: iso('last_used_at') } as const satisfies Record<
  keyof KeyCredential,
  string
>;
const USER_COLUMNS = { id: 'id', name: 'name', createdAt: iso('created_at') } as const satisfies Record<keyof User, string>;

function selectList(columns: Readonly<Record<string, string>>): string {
  return Object.entries(columns)
    .map(([field, column]) => `${column} AS "${field}"`)
    .join(', ');
}

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
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|Client has encountered a connection error|Connection ended|not queryable/i;

/** True when an error from `pg` means the database cannot be reached or answer in time. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code))) return true;
  return UNAVAILABLE_MESSAGES.test(error.message);
}

/** A `pg` error as the port's: `StoreUnavailable` when the database is away, else unchanged. */
export function translateError(error: unknown): unknown {
  if (error instanceof StoreUnavailable || !isUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailable(`the database is unavailable: ${reason}`, { cause: error });
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
 * together queue on the lock, and each finds the work done by the first. Refuses a database from newer code.
 */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ applied: number }>('SELECT coalesce(max(version), 0)::int AS applied FROM schema_migrations');
    const applied = rows[0]?.applied ?? 0;
    if (applied > POSTGRES_MIGRATIONS.length) {
      throw new Error(`the database is at schema version ${applied}, newer than this code (${POSTGRES_MIGRATIONS.length}); upgrade the code`);
    }
    for (let version = applied; version < POSTGRES_MIGRATIONS.length; version++) {
      await client.query(POSTGRES_MIGRATIONS[version] ?? '');
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw translateError(error);
  } finally {
    client.release();
  }
}

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
const FIND_KEY = { name: 'find-key', text: `SELECT ${selectList(KEY_CREDENTIAL_COLUMNS)} FROM api_keys WHERE digest = $1` };
const TOUCH_KEY = { name: 'touch-key', text: 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2' };
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

  async findKeyByDigest(digest: Buffer): Promise<KeyCredential | undefined> {
    return (await this.#query<KeyCredential>(FIND_KEY, [digest]))[0];
  }

  async touchKey(keyId: string, at: string): Promise<void> {
    await this.#query(TOUCH_KEY, [at, keyId]);
  }

  async createKey(userId: string, digest: Buffer, hint: string, at: string): Promise<KeySummary> {
    const id = newId('key');
    await this.#query('INSERT INTO api_keys (id, user_id, digest, hint, created_at) VALUES ($1, $2, $3, $4, $5)', [id, userId, digest, hint, at]);
    return { id, userId, hint, createdAt: at, lastUsedAt: null, revokedAt: null };
  }

  async listKeys(userId: string): Promise<KeySummary[]> {
    return this.#query<KeySummary>(`SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  }

  async revokeKey(keyId: string, at: string): Promise<boolean> {
    return (await this.#query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id', [at, keyId])).length === 1;
  }

  async createUser(name: string, at: string): Promise<User> {
    const id = newId('usr');
    await this.#query('INSERT INTO users (id, name, created_at) VALUES ($1, $2, $3)', [id, name, at]);
    return { id, name, createdAt: at };
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

  async secret(name: string): Promise<Buffer> {
    // Insert-if-absent, then read: instances starting at once agree on one secret.
    await this.#query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [`secret:${name}`, randomBytes(32)]);
    const row = (await this.#query<{ value: Buffer }>('SELECT value FROM meta WHERE key = $1', [`secret:${name}`]))[0];
    if (!row) throw new Error(`secret ${name} vanished`);
    return row.value;
  }

  async close(): Promise<void> {
    if (!this.#pool.ended && !this.#pool.ending) await this.#pool.end();
  }
}

import pg from 'pg';
import type { PostgresSettings } from '../config/env.js';
import { POSTGRES_MIGRATIONS } from './migrations.js';
import { COMPATIBILITY_TABLE, oldestCodeFor, planFor } from './schema-policy.js';
import { SqlStore } from './sql-store.js';
import { type Dialect, get, type SqlEngine, type Step, type Work } from './sql-work.js';
import { type QuotaLease, type Store, type StoreStats, StoreUnavailable, UnstorableInput } from './store.js';

export const DEFAULT_POSTGRES_SETTINGS: PostgresSettings = { poolSize: 10, connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 };

/** Any 64-bit number will do as long as every instance uses the same one: `migrate` holds it while it runs. */
const MIGRATION_LOCK = 7_406_211_923_001;

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

/**
 * PostgreSQL's side of the SQL the store shares (sql-store.ts): times are `timestamptz`, read back as RFC 3339
 * text; several instances write at once, so a read that decides a write locks its rows; the quota lease is a
 * function in the database (migration 3), by the database's clock, in one round trip.
 */
export const POSTGRES_DIALECT: Dialect = {
  system: 'postgresql',
  readTime: (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  time: (parameter) => `${parameter}::timestamptz`,
  forUpdate: ' FOR UPDATE',
  forNoKeyUpdate: ' FOR NO KEY UPDATE',
  forShare: ' FOR SHARE',
  nowMs: 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint',
  least: (a, b) => `least(${a}, ${b})`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  *leaseQuota(keyId, request): Work<QuotaLease> {
    const lease = yield* get<QuotaLease>('SELECT granted, used, reset_ms::float8 AS "resetMs" FROM lease_quota($1, $2, $3, $4)', [
      keyId,
      request.limit,
      request.windowMs,
      request.want,
    ]);
    if (!lease) throw new Error('lease_quota returned no row');
    return lease;
  },
};

/** Where a statement runs: the pool (any connection), or the one connection a transaction holds. */
type Connection = pg.Pool | pg.PoolClient;

/**
 * Runs the store's `Work` on a connection pool: each statement a named prepared statement (parsed and planned
 * once per connection), a transaction on one connection with every error rolled back, and `pg`'s errors as the
 * port's (`translateError`). No NOTIFY here: the schema's triggers send it in the writing transaction.
 */
class PostgresRunner implements SqlEngine {
  readonly dialect = POSTGRES_DIALECT;
  readonly #pool: pg.Pool;
  /** A name per statement text; the set of texts is fixed (no value is ever written into one). */
  readonly #names = new Map<string, string>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async perform<T>(work: Work<T>): Promise<T> {
    try {
      return await this.#run(work, this.#pool);
    } catch (error) {
      throw translateError(error);
    }
  }

  async #run<T>(work: Work<T>, connection: Connection): Promise<T> {
    let next = work.next();
    while (!next.done) {
      let answer: unknown;
      try {
        answer = await this.#step(next.value, connection);
      } catch (error) {
        next = work.throw(error);
        continue;
      }
      next = work.next(answer);
    }
    return next.value;
  }

  async #step(step: Step, connection: Connection): Promise<unknown> {
    if (step.kind === 'transaction') return connection === this.#pool ? this.#transaction(step.body) : this.#run(step.body(), connection);
    const result = await connection.query({ name: this.#name(step.sql), text: step.sql, values: step.params as unknown[] });
    switch (step.kind) {
      case 'all':
        return result.rows;
      case 'get':
        return result.rows[0];
      case 'run':
        return result.rowCount ?? 0;
    }
  }

  async #transaction(body: () => Work<unknown>): Promise<unknown> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const result = await this.#run(body(), client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  #name(sql: string): string {
    let name = this.#names.get(sql);
    if (!name) {
      name = `store-${this.#names.size + 1}`;
      this.#names.set(sql, name);
    }
    return name;
  }

  stats(): StoreStats {
    const pool = this.#pool;
    return { pool: { max: pool.options.max ?? 10, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } };
  }

  async close(): Promise<void> {
    if (!this.#pool.ended && !this.#pool.ending) await this.#pool.end();
  }
}

/** The store on a migrated pool (see `migrate`); closing it ends the pool. */
export function createPostgresStore(pool: pg.Pool): Store {
  return new SqlStore(new PostgresRunner(pool));
}

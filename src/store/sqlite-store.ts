import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { prepareDatabaseFile, UnwritableLocationError } from './private-files.js';
import { COMPATIBILITY_TABLE, oldestCodeFor, planFor } from './schema-policy.js';
import { SqlStore } from './sql-store.js';
import { type Dialect, get, run, type SqlEngine, type Step, transaction, type Work } from './sql-work.js';
import type { ChangeSignal, QuotaLease, QuotaRequest, Store } from './store.js';

/** An opened SQLite database: the store's queries, and the signal that another connection has written. */
export interface SqliteEngine {
  store: Store;
  changes: ChangeSignal;
}

/**
 * How long one look at SQLite's change counter stands: a key revoked (or any key, item, share or session
 * changed) by another process, such as the keys CLI, fails here within this bound. The look costs a read
 * transaction (file locks), so it is not taken on every request; this process's own writes are seen at once.
 */
export const SQLITE_CHANGE_CHECK_MS = 100;

export interface SqliteOptions {
  /** How long one look at the change counter stands (default `SQLITE_CHANGE_CHECK_MS`); 0 looks on every call. */
  changeCheckMs?: number;
  /** The clock for that bound, in milliseconds; a test passes a fake one. */
  now?: () => number;
}

/** Opens (creating if needed) an SQLite database and applies pending migrations. */
export function openSqliteStore(location: string, options: SqliteOptions = {}): SqliteEngine {
  if (location !== ':memory:') prepareDatabaseFile(location);
  const db = new Database(location);
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db.close();
    // The first read of the file: a file that is something else (or damaged) is the operator's DATABASE_PATH to correct, not a crash.
    if ((error as { code?: unknown }).code === 'SQLITE_NOTADB')
      throw new UnwritableLocationError(
        `${location} is not an SQLite database (or it is damaged): set DATABASE_PATH to the service's database file, or to a new file to start empty`,
        { cause: error },
      );
    throw error;
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // The key CLI writes while the server runs; wait for the lock instead of failing.
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return {
    store: new SqlStore(new SqliteRunner(db)),
    changes: dataVersionSignal(db, options.changeCheckMs ?? SQLITE_CHANGE_CHECK_MS, options.now ?? (() => performance.now())),
  };
}

/**
 * SQLite's `PRAGMA data_version` changes whenever another connection (the keys
 * CLI, a second server process) commits; this connection's own writes do not
 * change it, which is why the cache also forgets on its own writes. It is read
 * at most once per `checkMs`; in between, the last answer stands.
 */
function dataVersionSignal(db: Database.Database, checkMs: number, now: () => number): ChangeSignal {
  const read = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seen: number | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  return {
    // The counter says that another connection committed, not what: everything, then.
    changes() {
      const at = now();
      if (at - checkedAt < checkMs) return undefined;
      checkedAt = at;
      const version = read.get() as number;
      if (version === seen) return undefined;
      seen = version;
      return 'everything';
    },
  };
}

/**
 * Applies pending migrations, each in its own write transaction that also records the oldest code that runs on
 * its result, so a migration that fails later leaves a database whose record is true of its schema (a rollback
 * to older code is then refused if a contraction was applied). Each transaction re-reads the version under the
 * write lock, so two processes starting on one file apply each migration once. A database newer than this code
 * is served as is when it says this code still runs on it (schema-policy.ts).
 */
function migrate(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${COMPATIBILITY_TABLE} (oldest_code INTEGER NOT NULL) STRICT`);
  const readVersion = () => db.pragma('user_version', { simple: true }) as number;
  const readOldest = db.prepare<[], number>(`SELECT oldest_code FROM ${COMPATIBILITY_TABLE}`).pluck();
  const record = (oldest: number) => {
    db.exec(`DELETE FROM ${COMPATIBILITY_TABLE}`);
    db.prepare(`INSERT INTO ${COMPATIBILITY_TABLE} (oldest_code) VALUES (?)`).run(oldest);
  };
  if (planFor(readVersion(), readOldest.get()) === 'run') return;
  for (let version = readVersion(); version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      // Another process may have applied it since the version was read outside this transaction.
      if (readVersion() !== version) return;
      db.exec(MIGRATIONS[version] ?? '');
      db.pragma(`user_version = ${version + 1}`);
      record(oldestCodeFor(version + 1));
    }).immediate();
  }
  // A database already at this version may predate the record (migration 8 added it).
  const oldest = oldestCodeFor(MIGRATIONS.length);
  if (readVersion() === MIGRATIONS.length && readOldest.get() !== oldest) db.transaction(() => record(oldest)).immediate();
}

/**
 * SQLite's side of the SQL the store shares (sql-store.ts): times are kept as RFC 3339 text already, and a
 * transaction holds the whole file's write lock, so reads need no row locks.
 */
export const SQLITE_DIALECT: Dialect = {
  system: 'sqlite',
  readTime: (column) => column,
  time: (parameter) => parameter,
  forUpdate: '',
  forNoKeyUpdate: '',
  forShare: '',
  nowMs: "CAST(unixepoch('subsec') * 1000 AS INTEGER)",
  least: (a, b) => `min(${a}, ${b})`,
  greatest: (a, b) => `max(${a}, ${b})`,
  *leaseQuota(keyId: string, request: QuotaRequest): Work<QuotaLease> {
    const now = Date.now();
    const currentWindow = Math.floor(now / request.windowMs);
    return yield* transaction(function* () {
      const row = yield* get<{ window: number; used: number }>('SELECT window_index AS "window", used FROM rate_limits WHERE key_id = $1', [keyId]);
      const window = row && row.window >= currentWindow ? row.window : currentWindow;
      const counted = row && row.window >= currentWindow ? row.used : 0;
      const granted = Math.min(request.want, Math.max(request.limit - counted, 0));
      yield* run(
        'INSERT INTO rate_limits (key_id, window_index, used) VALUES ($1, $2, $3) ON CONFLICT (key_id) DO UPDATE SET window_index = excluded.window_index, used = excluded.used',
        [keyId, window, counted + granted],
      );
      return { granted, used: counted + granted, resetMs: Math.max((window + 1) * request.windowMs - now, 0) };
    });
  },
};

/** A statement prepared once, with the order in which its `$n` parameters stand (SQLite binds `?` by position). */
interface Prepared {
  statement: Database.Statement<unknown[], unknown>;
  order: number[];
}

/**
 * Runs the store's `Work` synchronously on the one connection: nothing else runs on it between an operation's
 * statements, and a transaction takes the write lock first (`BEGIN IMMEDIATE`), so every other process writing
 * the file is wholly before or after it.
 */
class SqliteRunner implements SqlEngine {
  readonly dialect = SQLITE_DIALECT;
  readonly #db: Database.Database;
  readonly #prepared = new Map<string, Prepared>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  perform<T>(work: Work<T>): Promise<T> {
    try {
      return Promise.resolve(this.#run(work));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #run<T>(work: Work<T>): T {
    let next = work.next();
    while (!next.done) {
      let answer: unknown;
      try {
        answer = this.#step(next.value);
      } catch (error) {
        next = work.throw(error);
        continue;
      }
      next = work.next(answer);
    }
    return next.value;
  }

  #step(step: Step): unknown {
    if (step.kind === 'transaction') {
      if (this.#db.inTransaction) return this.#run(step.body());
      return this.#db.transaction(() => this.#run(step.body())).immediate();
    }
    const { statement, order } = this.#prepare(step.sql);
    const values = order.map((n) => step.params[n - 1]);
    switch (step.kind) {
      case 'all':
        return statement.all(...values);
      case 'get':
        return statement.get(...values);
      case 'run':
        return statement.run(...values).changes;
    }
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#prepared.get(sql);
    if (!prepared) {
      const order: number[] = [];
      const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
        order.push(Number(n));
        return '?';
      });
      prepared = { statement: this.#db.prepare(text), order };
      this.#prepared.set(sql, prepared);
    }
    return prepared;
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

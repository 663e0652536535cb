import type { QuotaLease, QuotaRequest, StoreStats } from './store.js';

/**
 * A store operation written once for every engine, as a generator that yields the statements it needs and gets
 * each one's answer back: `const key = yield* get<Row>(sql, params)`. The engine decides how to run them. SQLite
 * runs the whole operation synchronously in this thread, so nothing else runs on its one connection in between
 * (and a transaction holds the database's write lock from its first step); PostgreSQL sends each statement over
 * the pool, a transaction on one connection. The SQL is the same text for both, with PostgreSQL's numbered parameters (`$1`);
 * where the dialects differ, the text asks the engine's `Dialect` (below).
 */
export type Work<T> = Generator<Step, T, unknown>;

/** One thing an operation asks of the engine. */
export type Step =
  | { readonly kind: 'all' | 'get' | 'run'; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly kind: 'transaction'; readonly body: () => Work<unknown> };

/** Every row the statement returns. */
export function* all<Row>(sql: string, params: readonly unknown[] = []): Work<Row[]> {
  return (yield { kind: 'all', sql, params }) as Row[];
}

/** The statement's first row, or undefined. */
export function* get<Row>(sql: string, params: readonly unknown[] = []): Work<Row | undefined> {
  return (yield { kind: 'get', sql, params }) as Row | undefined;
}

/** Runs a statement that returns no rows; how many rows it changed. */
export function* run(sql: string, params: readonly unknown[] = []): Work<number> {
  return (yield { kind: 'run', sql, params }) as number;
}

/**
 * `body` in one transaction: all of it or none. SQLite takes the write lock first (`BEGIN IMMEDIATE`), so every
 * writer on the file is wholly before or after it; PostgreSQL's reads lock the rows they must (`Dialect.forUpdate`).
 * A transaction inside a transaction is part of the outer one.
 */
export function* transaction<T>(body: () => Work<T>): Work<T> {
  return (yield { kind: 'transaction', body }) as T;
}

/** An open database that runs `Work`: the one thing an engine implements besides its dialect. */
export interface SqlEngine {
  readonly dialect: Dialect;
  perform<T>(work: Work<T>): Promise<T>;
  stats?(): StoreStats;
  close(): Promise<void>;
}

/**
 * What differs between the engines' SQL, kept small and named. Everything else in the store's queries is SQL
 * both engines read the same way: `ON CONFLICT`, `RETURNING`, row values, `CAST(? AS integer)`.
 */
export interface Dialect {
  readonly system: 'sqlite' | 'postgresql';
  /** A stored time read back as RFC 3339 UTC text with milliseconds (SQLite keeps it as that text already). */
  readTime(column: string): string;
  /** A parameter (`$2`) that holds a time, typed for PostgreSQL wherever the column beside it may not tell. */
  time(parameter: string): string;
  /**
   * Row locks for a read inside a transaction. PostgreSQL's instances write at once, so a read that decides a
   * write locks what it read; SQLite's transaction already holds the whole database's write lock.
   */
  readonly forUpdate: string;
  /** A lock that keeps the row's key free for foreign keys (PostgreSQL's `FOR NO KEY UPDATE`). */
  readonly forNoKeyUpdate: string;
  /** A lock that only waits for writers of the row (PostgreSQL's `FOR SHARE`). */
  readonly forShare: string;
  /** The database's clock, in whole milliseconds since the epoch: instances that share a budget share its windows. */
  readonly nowMs: string;
  /** The smaller of two numbers (`min(a, b)` in SQLite, `least(a, b)` in PostgreSQL). */
  least(a: string, b: string): string;
  greatest(a: string, b: string): string;
  /**
   * A key's quota lease: the one operation each engine does its own way. PostgreSQL's is a function in the
   * database (migration 3), by the database's clock, one round trip; SQLite's counts in a transaction by this
   * process's clock, which is every writer's clock on one machine.
   */
  leaseQuota(keyId: string, request: QuotaRequest): Work<QuotaLease>;
}

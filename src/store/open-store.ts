import type { StoreConfig } from '../config/env.js';
import { CachedStore } from './cached-store.js';
import { PostgresChangeSignal } from './postgres-changes.js';
import { createPool, createPostgresStore, DEFAULT_POSTGRES_SETTINGS, migrate } from './postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** How often, at most, a PostgreSQL instance's caches go unchecked when no notification comes (`CACHE_TTL_MS`). */
export const DEFAULT_CACHE_TTL_MS = 5_000;

export interface OpenStoreOptions {
  /** Told when the PostgreSQL change listener connects or drops, for the log. */
  onListenerState?: (state: 'listening' | 'dropped', error?: unknown) => void;
  /** Wraps the engine under the cache (the tracing's span per database call); migrations run before it. */
  wrapEngine?: ((engine: Store, system: 'postgresql' | 'sqlite') => Store) | undefined;
}

/**
 * The one way to open the store, used by the server, the keys CLI, the bench and
 * the tests: the engine the configuration names (PostgreSQL when `databaseUrl` is
 * set, else embedded SQLite), with migrations applied and the read cache over it,
 * invalidated by that engine's change signal. Rejects with `StoreUnavailable`
 * when PostgreSQL cannot be reached.
 */
export async function openStore(config: StoreConfig, options: OpenStoreOptions = {}): Promise<Store> {
  if (config.databaseUrl) {
    const settings = { ...DEFAULT_POSTGRES_SETTINGS, ...config.postgres };
    const pool = createPool(config.databaseUrl, settings, 'bearer-list-api');
    try {
      await migrate(pool);
      const changes = await PostgresChangeSignal.open({
        url: config.databaseUrl,
        ttlMs: config.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS,
        connectTimeoutMs: settings.connectTimeoutMs,
        ...(options.onListenerState && { onState: options.onListenerState }),
      });
      const engine = createPostgresStore(pool);
      return new CachedStore(options.wrapEngine?.(engine, 'postgresql') ?? engine, changes);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }
  const { store, changes } = openSqliteStore(config.databasePath);
  return new CachedStore(options.wrapEngine?.(store, 'sqlite') ?? store, changes);
}

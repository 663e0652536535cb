import type { StoreConfig } from '../config/env.js';
import { CachedStore } from './cached-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/**
 * The one way to open the store, used by the server, the keys CLI, the bench and
 * the tests: the engine the configuration names (embedded SQLite today), with
 * migrations applied and the read cache over it.
 */
export async function openStore(config: StoreConfig): Promise<Store> {
  const { store, changes } = openSqliteStore(config.databasePath);
  return new CachedStore(store, changes);
}

import type { Store } from '../store/store.js';
import type { Readiness } from './readiness.js';

/**
 * The server's own readiness checks: `migrations` (the store is open, which it is only once its migrations are
 * applied), `database` (it answers `SELECT 1` now) and `draining` (no SIGTERM yet). `store` is read on every
 * probe: it is undefined while the server is still opening it.
 */
export function addServerChecks(readiness: Readiness, state: { store: () => Store | undefined; draining: () => boolean }): Readiness {
  return readiness
    .add('migrations', () => (state.store() ? undefined : 'the database is being opened and migrated'))
    .add('database', async () => {
      const store = state.store();
      if (!store) return 'not open yet';
      try {
        await store.ping();
        return undefined;
      } catch (error) {
        return `the database does not answer: ${error instanceof Error ? error.message : String(error)}`;
      }
    })
    .add('draining', () => (state.draining() ? 'shutting down: finishing what is in flight, taking nothing new' : undefined));
}

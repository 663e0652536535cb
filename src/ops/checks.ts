import type { Store } from '../store/store.js';
import type { Readiness } from './readiness.js';

/** The database is asked at most this often, however many probes, balancers and scrapers call `/readyz`. */
export const DATABASE_CHECK_INTERVAL_MS = 1_000;

export interface ServerCheckState {
  store: () => Store | undefined;
  draining: () => boolean;
  /** Told why the database did not answer: the error's text goes to the log, never into `/readyz`'s body. */
  onDatabaseError?: (error: unknown) => void;
  now?: () => number;
}

/**
 * The server's own readiness checks: `migrations` (the store is open, which it is only once its migrations are
 * applied), `database` (advisory: it answered `SELECT 1` within the last second) and `draining` (no SIGTERM yet). `store` is
 * read on every probe: it is undefined while the server is still opening it. The database is pinged at most once a
 * second, callers at the same time sharing one ping: 200 unauthenticated probes are one query, not 200.
 */
export function addServerChecks(readiness: Readiness, state: ServerCheckState): Readiness {
  const now = state.now ?? Date.now;
  let last: { at: number; store: Store; verdict: Promise<string | undefined> } | undefined;
  const ping = (store: Store): Promise<string | undefined> =>
    store.ping().then(
      () => undefined,
      (error: unknown) => {
        state.onDatabaseError?.(error);
        // A driver's message may name hosts and ports (connect ECONNREFUSED 10.0.0.5:5432): the log has it, the probe does not.
        return 'the database does not answer (the server log says why)';
      },
    );
  return readiness
    .add('migrations', () => (state.store() ? undefined : 'the database is being opened and migrated'))
    .add(
      'database',
      () => {
        const store = state.store();
        if (!store) return 'not open yet';
        const at = now();
        if (!last || last.store !== store || at - last.at >= DATABASE_CHECK_INTERVAL_MS) last = { at, store, verdict: ping(store) };
        return last.verdict;
      },
      // Every instance shares the database: while it is away each answers 503 problem+json with Retry-After itself,
      // and stays in the balancer's pool (ADR 0034). `migrations` still holds a starting instance back.
      { advisory: true },
    )
    .add('draining', () => (state.draining() ? 'shutting down: finishing what is in flight, taking nothing new' : undefined));
}

import type { Logger } from 'pino';
import type { AccountLimits } from '../contract/limits.js';
import { startRetention } from '../store/retention.js';
import type { Store } from '../store/store.js';

/**
 * Prunes what the database keeps only for a while (docs/data.md, "Retention"), at start and every hour: sessions
 * idle past the account spec's limit, attempt counts past the longest sign-in or sign-up window, key events past
 * `KEY_EVENTS_RETENTION_DAYS`. A pass that prunes something is logged; a failed one is logged unless the server is
 * stopping (the store closing under it is no news).
 */
export function pruneOnSchedule(
  store: Store,
  limits: { account: AccountLimits; keyEventsRetentionDays: number },
  logger: Logger,
  stopping: () => boolean,
): { stop(): void } {
  const { account, keyEventsRetentionDays } = limits;
  return startRetention(
    store,
    {
      sessionIdleMs: account.session.idleSeconds * 1000,
      attemptsForgetMs: Math.max(account.signIn.windowSeconds, account.signUp.windowSeconds) * 1000,
      keyHistoryDays: keyEventsRetentionDays,
    },
    {
      pruned: (pruned) => {
        if (Object.values(pruned).some((count) => count > 0)) logger.info({ ...pruned, keyEventsRetentionDays }, 'pruned');
      },
      failed: (error) => {
        if (!stopping()) logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'pruning failed; tried again at the next pass');
      },
    },
  );
}

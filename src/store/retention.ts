/**
 * Bounded growth (docs/data.md, "Retention"): what the database keeps only for a while is deleted on a timer
 * by every instance (the deletes are idempotent, so instances sharing a database need no coordination).
 */
import type { Store } from './store.js';

/** How often an instance prunes; the first pass runs at start. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

const DAY_MS = 86_400_000;

/** How long each kind of row is kept. */
export interface RetentionRule {
  /** A session unused this long has ended (the account spec's `session.idleSeconds`). */
  sessionIdleMs: number;
  /** An attempt count is forgotten this long after its latest attempt (the longest of the sign-in and sign-up windows). */
  attemptsForgetMs: number;
  /** Key events, and keys their owners removed from their lists, are deleted after this many days. */
  keyHistoryDays: number;
}

/** Rows each kind lost in one pass. */
export interface Pruned {
  sessions: number;
  attempts: number;
  /** Shared budgets whose window ended (failed authentications per address). */
  budgets: number;
  keyEvents: number;
  removedKeys: number;
}

/** One pass: ended sessions, forgotten attempt counts, shared budgets of ended windows, key history older than its retention. */
export async function pruneOnce(store: Store, rule: RetentionRule, nowMs: number): Promise<Pruned> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const sessions = await store.deleteEndedSessions(iso(nowMs), iso(nowMs - rule.sessionIdleMs));
  const attempts = await store.deleteAttemptsBefore(nowMs - rule.attemptsForgetMs, '');
  const budgets = await store.deleteBudgetsBefore(nowMs);
  const history = await store.deleteKeyHistoryBefore(iso(nowMs - rule.keyHistoryDays * DAY_MS));
  return { sessions, attempts, budgets, keyEvents: history.events, removedKeys: history.keys };
}

/**
 * Prunes now and every `intervalMs` until stopped. A pass that fails (the database away) is reported and
 * tried again at the next tick; the timer never holds the process open.
 */
export function startRetention(
  store: Store,
  rule: RetentionRule,
  report: { pruned(pruned: Pruned): void; failed(error: unknown): void },
  options: { intervalMs?: number; now?: () => number } = {},
): { stop(): void } {
  const now = options.now ?? Date.now;
  let running = false;
  // One pass at a time: a slow database does not pile passes up.
  const pass = () => {
    if (running) return;
    running = true;
    pruneOnce(store, rule, now())
      .then(report.pruned, report.failed)
      .finally(() => {
        running = false;
      });
  };
  pass();
  const timer = setInterval(pass, options.intervalMs ?? RETENTION_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

import { clientBudgetKey } from '../http/client-key.js';
import type { FailedAuthenticationBudget } from '../http/failure-budget.js';
import { type Guard, kernelOf } from '../http/kernel-env.js';
import { ApiError } from '../http/problems.js';
import type { SessionRecord } from '../store/store.js';
import type { Sessions } from './sessions.js';

/**
 * The `sessionCookie` scheme's check: the live session the request's cookie names is set for the
 * handlers, or the request is refused with 401. A live session is always served, whatever anyone has
 * sent: its lookup (one indexed, cached query) comes first. Each 401 spends the client address's
 * failed-authentication budget; over it, a request without a live session gets 429 instead.
 */
export function sessionCookie(options: {
  sessions: Sessions;
  now: () => number;
  failures: FailedAuthenticationBudget;
  /** The prefix an IPv6 client is counted by (`client-key.ts`); default 64. */
  ipv6PrefixLength?: number | undefined;
}): Guard<{ session?: SessionRecord }> {
  const { sessions, now, failures } = options;
  return async (c) => {
    let session = c.get('session');
    if (!session) {
      const client = clientBudgetKey(c.get('client'), options.ipv6PrefixLength);
      const spent = failures.spent(client);
      try {
        session = await sessions.require(c, now());
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
        failures.fail(client);
        if (spent)
          throw new ApiError(
            'urn:problem-type:rate-limited',
            `This address has sent ${spent.limit} requests without a live session in the current ${failures.windowSeconds}-second window; ` +
              `a signed-in browser is still served. Retry in ${spent.resetSeconds} seconds.`,
            { headers: { 'Retry-After': String(spent.resetSeconds) }, reason: 'failed-authentication-budget' },
          );
        throw error;
      }
    }
    c.set('session', session);
    kernelOf(c).set('principal', { userId: session.user.id });
  };
}

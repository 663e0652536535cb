import type { FailureBudget } from '../http/failure-budget.js';
import type { Guard } from '../http/kernel-env.js';
import { ApiError } from '../http/problems.js';
import type { SessionRecord } from '../store/store.js';
import type { Sessions } from './sessions.js';

/**
 * The `sessionCookie` scheme's middleware: the live session the request's cookie names is set for the
 * handlers, or the request is refused with 401. Each 401 spends the failed-authentication budget; over
 * it, the refusal is a 429. A live session is always served: its lookup is one indexed, cached query.
 */
export function sessionCookie(options: { sessions: Sessions; now: () => number; failures: FailureBudget }): Guard<{ session?: SessionRecord; client: string }> {
  const { sessions, now, failures } = options;
  return async (c, next) => {
    let session: SessionRecord;
    try {
      session = await sessions.require(c, now());
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      const client = c.get('client');
      const wait = failures.retryAfter(client);
      failures.fail(client);
      if (wait > 0) {
        throw new ApiError('urn:problem-type:rate-limited', `Too many requests without a live session from this address or in all. Retry in ${wait} seconds.`, {
          headers: { 'Retry-After': String(wait) },
        });
      }
      throw error;
    }
    c.set('session', session);
    await next();
  };
}

import type { ClientAddress } from '../http/client-address.js';
import type { Guard } from '../http/contract-app.js';
import type { FailureBudget } from '../http/failure-budget.js';
import { ApiError } from '../http/problems.js';
import type { Store } from '../store/store.js';
import { authenticate, type Caller, isAuthenticationFailure } from './authenticate.js';

export interface BearerKeyOptions {
  store: Store;
  now: () => number;
  /** Requests with missing or invalid credentials, per client and in all; over it, 429 instead of 401. */
  failures: FailureBudget;
  clientAddress: ClientAddress;
}

/**
 * The `bearerAuth` scheme's middleware, shaped like Hono's own `bearerAuth({ verifyToken })`: the key in
 * `Authorization: Bearer` is checked (`authenticate`), and the caller it belongs to is set for the
 * handlers. Each refusal spends the failed-authentication budget. Over either budget, a key the cache
 * already knows is still served; nothing else is looked up or refused with 401.
 */
export function bearerKey(options: BearerKeyOptions): Guard<{ caller: Caller }> {
  const { store, now, failures, clientAddress } = options;
  return async (c, next) => {
    const address = clientAddress(c);
    try {
      const caller = await authenticate(c.req.header('authorization'), store, now(), {
        admit(digest) {
          // A key the cache knows is served whatever the budgets say; asked first, it spares the usual request the budget reads.
          if (digest && store.peekKeyByDigest?.(digest)) return;
          const spent = failures.spent(address);
          if (!spent) return;
          c.set('quota', { allowed: false, limit: spent.limit, remaining: 0, resetSeconds: spent.resetSeconds });
          const reason =
            spent.scope === 'address'
              ? `This client has sent ${spent.limit} requests with missing or invalid credentials in the current ${failures.windowSeconds}-second window.`
              : 'The service has refused too many invalid credentials in this window and now serves only keys it already knows.';
          throw new ApiError('urn:problem-type:rate-limited', `${reason} Retry in ${spent.resetSeconds} seconds.`, {
            headers: { 'Retry-After': String(spent.resetSeconds) },
          });
        },
      });
      c.set('caller', caller);
    } catch (error) {
      if (isAuthenticationFailure(error)) failures.fail(address);
      throw error;
    }
    await next();
  };
}

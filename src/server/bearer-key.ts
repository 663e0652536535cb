import type { Context } from 'hono';
import { type Guard, type KernelEnv, kernelOf } from '../http/contract-app.js';
import type { FailureBudget, SpentBudget } from '../http/failure-budget.js';
import { ApiError } from '../http/problems.js';
import type { KeyCredential, Store } from '../store/store.js';
import { authenticate, type Caller, isAuthenticationFailure } from './authenticate.js';

export interface BearerKeyOptions {
  store: Store;
  now: () => number;
  /** Requests with missing or invalid credentials, per client address; over it, 429 instead of 401. */
  failures: FailureBudget;
}

/**
 * The `bearerAuth` scheme's middleware, shaped like Hono's own `bearerAuth({ verifyToken })`: the key in
 * `Authorization: Bearer` is checked (`authenticate`), and the caller it belongs to is set for the
 * handlers. A valid, unexpired, unrevoked key is always served, whatever anyone has sent: nothing here
 * refuses it before it is looked up.
 *
 * Each refusal spends the client address's failed-authentication budget. Over it, the client's requests
 * that carry no valid key get 429 instead of 401, and those already known to carry none (no well-formed
 * key, or a key the cache knows to be unknown, revoked or expired) are refused without a lookup. What a
 * flood of made-up keys costs is bounded without a budget in all: a key with a wrong checksum costs no
 * lookup, a well-formed unknown one one indexed lookup, remembered in the key cache.
 */
export function bearerKey(options: BearerKeyOptions): Guard<{ caller: Caller }> {
  const { store, now, failures } = options;
  return async (c, next) => {
    const address = kernelOf(c).get('client');
    const at = now();
    // Read before the key is checked: the answer to a key that turns out invalid depends on what came before it.
    const spent = failures.spent(address);
    try {
      const caller = await authenticate(c.req.header('authorization'), store, at, {
        admit(digest) {
          if (spent && !(digest && mayBeValid(store.peekKeyByDigest?.(digest), at))) throw overBudget(c, spent, failures.windowSeconds);
        },
      });
      c.set('caller', caller);
    } catch (error) {
      if (!isAuthenticationFailure(error)) throw error;
      failures.fail(address);
      throw spent ? overBudget(c, spent, failures.windowSeconds) : error;
    }
    await next();
  };
}

/** Whether what the cache knows of a key leaves it possibly valid: not known at all, or known, unrevoked and unexpired. */
function mayBeValid(known: KeyCredential | null | undefined, at: number): boolean {
  if (known === undefined) return true;
  return known !== null && known.revokedAt === null && (known.expiresAt === null || Date.parse(known.expiresAt) > at);
}

function overBudget(c: Context<KernelEnv<{ caller: Caller }>>, spent: SpentBudget, windowSeconds: number): ApiError {
  kernelOf(c).set('quota', { allowed: false, limit: spent.limit, remaining: 0, resetSeconds: spent.resetSeconds });
  return new ApiError(
    'urn:problem-type:rate-limited',
    `This client has sent ${spent.limit} requests with missing or invalid credentials in the current ${windowSeconds}-second window; ` +
      `a valid key is still served. Retry in ${spent.resetSeconds} seconds.`,
    { headers: { 'Retry-After': String(spent.resetSeconds) } },
  );
}

import type { Context } from 'hono';
import { type Guard, type KernelEnv, kernelOf } from './contract-app.js';
import { ApiError } from './problems.js';
import type { Quota, RateLimiter } from './rate-limit.js';

export interface QuotaOptions<Variables extends object> {
  limiter: RateLimiter;
  /** Whose quota the request counts against: the key, the session, the client address. */
  keyOf: (c: Context<KernelEnv<Variables>>) => string | Promise<string>;
  /** Why a used-up quota refuses, in the 429's detail (the wait is added); given the key when it depends on whose quota it is. */
  refusal: string | ((key: string) => string);
  /** Whether answers report the quota in `RateLimit-*` headers (the contract declares them). */
  headers: boolean;
}

/** Middleware that counts each request against a quota and refuses it with 429 once the quota is used up. */
export function quota<Variables extends object>(options: QuotaOptions<Variables>): Guard<Variables> {
  const { limiter, keyOf, refusal, headers } = options;
  const apply = (c: Context<KernelEnv<Variables>>, key: string, taken: Quota) => {
    if (headers) kernelOf(c).set('quota', taken);
    if (!taken.allowed)
      throw new ApiError('urn:problem-type:rate-limited', `${typeof refusal === 'string' ? refusal : refusal(key)} Retry in ${taken.resetSeconds} seconds.`, {
        headers: { 'Retry-After': String(taken.resetSeconds) },
      });
  };
  return async (c, next) => {
    const found = keyOf(c);
    const key = typeof found === 'string' ? found : await found;
    const taken = limiter.take(key);
    apply(c, key, taken instanceof Promise ? await taken : taken);
    await next();
  };
}

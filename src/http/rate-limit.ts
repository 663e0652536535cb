import type { Context } from 'hono';
import { type Guard, type KernelEnv, kernelOf, type Quota } from './kernel-env.js';
import { ApiError } from './problems.js';

/** Counts a request against a key's quota; synchronous when it can answer from memory. */
export interface RateLimiter {
  take(key: string): Quota | Promise<Quota>;
}

/**
 * A fixed-window counter per API key, in memory: the embedded SQLite deployment's
 * limiter (one process, no I/O). Several instances on PostgreSQL share one quota
 * through `SharedRateLimiter` instead (docs/adr/0010).
 */
export class FixedWindowRateLimiter implements RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();
  #lastSweep = 0;

  constructor(options: { requests: number; windowSeconds: number; now: () => number }) {
    this.#limit = options.requests;
    this.#windowMs = options.windowSeconds * 1000;
    this.#now = options.now;
  }

  /** Counts one request for the key and says whether it may proceed. */
  take(key: string): Quota {
    const now = this.#now();
    this.#sweep(now);
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.#windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    const allowed = window.count < this.#limit;
    if (allowed) window.count++;
    return {
      allowed,
      limit: this.#limit,
      remaining: this.#limit - window.count,
      resetSeconds: Math.max(0, Math.ceil((window.start + this.#windowMs - now) / 1000)),
    };
  }

  /** Drops finished windows once per window length, so memory follows the keys in use. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#windowMs) return;
    this.#lastSweep = now;
    for (const [key, window] of this.#windows) {
      if (now - window.start >= this.#windowMs) this.#windows.delete(key);
    }
  }
}

export interface QuotaOptions<Variables extends object> {
  limiter: RateLimiter;
  /** Whose quota the request counts against: the key, the session, the client address. */
  keyOf: (c: Context<KernelEnv<Variables>>) => string | Promise<string>;
  /** Why a used-up quota refuses, in the 429's detail (the wait is added); given the key when it depends on whose quota it is. */
  refusal: string | ((key: string) => string);
  /** Whether answers report the quota in `RateLimit-*` headers (the contract declares them). */
  headers: boolean;
}

/** A check that counts each request against a quota and refuses it with 429 once the quota is used up. */
export function quota<Variables extends object>(options: QuotaOptions<Variables>): Guard<Variables> {
  const { limiter, keyOf, refusal, headers } = options;
  const apply = (c: Context<KernelEnv<Variables>>, key: string, taken: Quota) => {
    if (headers) kernelOf(c).set('quota', taken);
    if (!taken.allowed)
      throw new ApiError('urn:problem-type:rate-limited', `${typeof refusal === 'string' ? refusal : refusal(key)} Retry in ${taken.resetSeconds} seconds.`, {
        headers: { 'Retry-After': String(taken.resetSeconds) },
        reason: 'rate-limit',
      });
  };
  const count = (c: Context<KernelEnv<Variables>>, key: string): void | Promise<void> => {
    const taken = limiter.take(key);
    return taken instanceof Promise ? taken.then((quota) => apply(c, key, quota)) : apply(c, key, taken);
  };
  return (c) => {
    const found = keyOf(c);
    return typeof found === 'string' ? count(c, found) : found.then((key) => count(c, key));
  };
}

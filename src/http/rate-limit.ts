/** The state of one key's quota, as the RateLimit-* headers report it. */
export interface Quota {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window ends. */
  resetSeconds: number;
}

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

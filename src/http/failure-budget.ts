/** Most counters kept at once; past it, finished windows are dropped, then (an attack cycling names) everything. */
const MAX_ENTRIES = 100_000;

/**
 * Failures counted per key (a client address) in fixed windows that begin with a key's first
 * failure, in memory. A key that has reached its limit waits until its window ends.
 */
export class FailureCounter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; failures: number }>();

  constructor(options: { failures: number; windowSeconds: number; now: () => number }) {
    this.#limit = options.failures;
    this.#windowMs = options.windowSeconds * 1000;
    this.#now = options.now;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string): number {
    const now = this.#now();
    const window = this.#current(key, now);
    return window && window.failures >= this.#limit ? Math.max(1, Math.ceil((window.start + this.#windowMs - now) / 1000)) : 0;
  }

  fail(key: string): void {
    const now = this.#now();
    let window = this.#current(key, now);
    if (!window) {
      if (this.#windows.size >= MAX_ENTRIES) this.#sweep(now);
      window = { start: now, failures: 0 };
      this.#windows.set(key, window);
    }
    window.failures++;
  }

  clear(key: string): void {
    this.#windows.delete(key);
  }

  #current(key: string, now: number): { start: number; failures: number } | undefined {
    const window = this.#windows.get(key);
    if (window && now - window.start >= this.#windowMs) {
      this.#windows.delete(key);
      return undefined;
    }
    return window;
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (now - window.start >= this.#windowMs) this.#windows.delete(key);
    if (this.#windows.size >= MAX_ENTRIES) this.#windows.clear();
  }
}

/** The budget a client has spent: its size and when it resets. */
export interface SpentBudget {
  limit: number;
  resetSeconds: number;
}

/**
 * The budget of requests whose credentials fail (`x-limits.failedAuthentication`), per client address,
 * per process: a protection, not a quota the contract promises. Both APIs' security middleware spend it.
 * It only ever refuses a request that carries no valid credential: a client over it gets 429 instead of
 * 401, and a valid key or a live session it sends is served all the same. There is no budget for all
 * clients together: one would let a flood from many addresses refuse everyone else (issue 20).
 */
export class FailureBudget {
  readonly #perAddress: FailureCounter;
  readonly windowSeconds: number;

  constructor(options: { perAddress: number; windowSeconds: number; now: () => number }) {
    const { windowSeconds, now } = options;
    this.windowSeconds = windowSeconds;
    this.#perAddress = new FailureCounter({ failures: options.perAddress, windowSeconds, now });
  }

  /** The budget if the address has spent it; undefined while it has room. */
  spent(address: string): SpentBudget | undefined {
    const resetSeconds = this.#perAddress.retryAfter(address);
    return resetSeconds > 0 ? { limit: this.#perAddress.limit, resetSeconds } : undefined;
  }

  /** Counts one failed request from the address. */
  fail(address: string): void {
    this.#perAddress.fail(address);
  }
}

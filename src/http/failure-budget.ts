/** Most counters kept at once; past it, finished windows are dropped, then (an attack cycling names) everything. */
const MAX_ENTRIES = 100_000;

/**
 * Failures counted per key (a client address, `all`) in fixed windows that begin with a key's first
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

/** Which budget a client has spent, its size and when it resets. */
export interface SpentBudget {
  scope: 'address' | 'all';
  limit: number;
  resetSeconds: number;
}

const ALL = 'all';

/**
 * The budget of requests whose credentials fail (`x-limits.failedAuthentication`), per client address
 * and for all addresses together, per process: a protection, not a quota the contract promises. Both
 * APIs' security middleware spend it; over either budget such a request is refused with 429 instead of 401.
 */
export class FailureBudget {
  readonly #perAddress: FailureCounter;
  readonly #total: FailureCounter;
  readonly windowSeconds: number;

  constructor(options: { perAddress: number; total: number; windowSeconds: number; now: () => number }) {
    const { windowSeconds, now } = options;
    this.windowSeconds = windowSeconds;
    this.#perAddress = new FailureCounter({ failures: options.perAddress, windowSeconds, now });
    this.#total = new FailureCounter({ failures: options.total, windowSeconds, now });
  }

  /** The budget the address has spent, the address's own first; undefined while both have room. */
  spent(address: string): SpentBudget | undefined {
    const byAddress = this.#perAddress.retryAfter(address);
    if (byAddress > 0) return { scope: 'address', limit: this.#perAddress.limit, resetSeconds: byAddress };
    const inAll = this.#total.retryAfter(ALL);
    if (inAll > 0) return { scope: 'all', limit: this.#total.limit, resetSeconds: inAll };
    return undefined;
  }

  /** Seconds until the address may fail again without refusal: the longer wait of the two budgets, 0 while both have room. */
  retryAfter(address: string): number {
    return Math.max(this.#perAddress.retryAfter(address), this.#total.retryAfter(ALL));
  }

  /** Counts one failed request from the address, in both budgets. */
  fail(address: string): void {
    this.#perAddress.fail(address);
    this.#total.fail(ALL);
  }
}

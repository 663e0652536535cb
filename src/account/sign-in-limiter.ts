/** Most counters kept at once; past it, finished windows are dropped, then (an attack cycling names) everything. */
const MAX_ENTRIES = 100_000;

/**
 * Counts failed sign-ins per key (an account name, a client address) in fixed
 * windows, in memory, like the request rate limit (ADR 0005). A key that has
 * reached its limit is refused until its window ends, before any password is
 * checked, so a guesser pays no Argon2 time and learns nothing.
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

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string): number {
    const window = this.#current(key, this.#now());
    return window && window.failures >= this.#limit ? Math.max(1, Math.ceil((window.start + this.#windowMs - this.#now()) / 1000)) : 0;
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

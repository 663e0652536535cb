import { createHmac } from 'node:crypto';
import type { Store } from '../store/store.js';

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

/** A limit on failed attempts per key, in fixed windows that begin with a key's first failure. */
export interface FailureLimit {
  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string): Promise<number>;
  fail(key: string): Promise<void>;
  clear(key: string): Promise<void>;
}

/** Ended windows are deleted from the store once every this many failures a process counts. */
const PRUNE_EVERY_FAILURES = 1_000;

/**
 * Failed sign-ins counted in the store (`failure_windows`), so every instance on one database counts them
 * together: with N instances behind a balancer, an account still gets its configured number of guesses per
 * window in all, not N times as many. `scope` keeps the counters of one limit apart from another's
 * (`account`, `client`). Ended windows are deleted now and then, so an attack cycling names leaves no
 * lasting rows. The database holds an HMAC of each key, never the key: a password typed into the name
 * field, or a client's address, is not written to disk in clear.
 */
export class StoredFailureLimit implements FailureLimit {
  readonly #store: Store;
  readonly #scope: string;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #sincePrune = 0;
  #secret: Promise<Buffer> | undefined;

  constructor(options: { store: Store; scope: string; failures: number; windowSeconds: number; now: () => number }) {
    this.#store = options.store;
    this.#scope = options.scope;
    this.#limit = options.failures;
    this.#windowMs = options.windowSeconds * 1000;
    this.#now = options.now;
  }

  async retryAfter(key: string): Promise<number> {
    const window = await this.#store.findFailures(await this.#key(key));
    const now = this.#now();
    if (!window || window.failures < this.#limit || now - window.startMs >= this.#windowMs) return 0;
    return Math.max(1, Math.ceil((window.startMs + this.#windowMs - now) / 1000));
  }

  async fail(key: string): Promise<void> {
    const now = this.#now();
    await this.#store.recordFailure(await this.#key(key), now, this.#windowMs);
    if (++this.#sincePrune >= PRUNE_EVERY_FAILURES) {
      this.#sincePrune = 0;
      await this.#store.deleteEndedFailures(now - this.#windowMs);
    }
  }

  async clear(key: string): Promise<void> {
    await this.#store.clearFailures(await this.#key(key));
  }

  /** The stored key: the scope, then an HMAC of the key under a secret that lives with the database (shared by every instance). */
  async #key(key: string): Promise<string> {
    // Read once; a failed read (the database away) is tried again next time.
    this.#secret ??= this.#store.secret('failure-keys').catch((error: unknown) => {
      this.#secret = undefined;
      throw error;
    });
    const digest = createHmac('sha256', await this.#secret)
      .update(key)
      .digest('base64url');
    return `${this.#scope}:${digest}`;
  }
}

import { createHmac } from 'node:crypto';
import type { Store } from '../store/store.js';

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

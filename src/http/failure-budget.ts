import { keyedDigest, type SecretSource } from '../store/secrets.js';
import type { Store } from '../store/store.js';

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
 * What the security middleware of both APIs asks of the budget of requests whose credentials fail: whether an
 * address has spent it (answered from memory, on the request path), and to count one failure.
 */
export interface FailedAuthenticationBudget {
  readonly windowSeconds: number;
  /** The budget if the address has spent it; undefined while it has room. */
  spent(address: string): SpentBudget | undefined;
  /** Counts one failed request from the address. */
  fail(address: string): void;
}

/**
 * The budget of requests whose credentials fail (`x-limits.failedAuthentication`), per client address,
 * per process: a protection, not a quota the contract promises. Both APIs' security middleware spend it.
 * It only ever refuses a request that carries no valid credential: a client over it gets 429 instead of
 * 401, and a valid key or a live session it sends is served all the same. There is no budget for all
 * clients together: one would let a flood from many addresses refuse everyone else (issue 20).
 */
export class FailureBudget implements FailedAuthenticationBudget {
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

/** Failures taken from the shared budget at a time: a tenth of it, at least 1 (20 per window: blocks of 2). */
export function failureBlock(limit: number): number {
  return Math.max(1, Math.floor(limit / 10));
}

interface SharedWindow {
  /** Failures this instance may still count from the blocks it holds. */
  left: number;
  /** Failures counted here past the blocks held, owed to the next block. */
  owed: number;
  /** When the window ends, by this process's clock. */
  endsAt: number;
  /** The database granted less than asked: the window's budget is spent on every instance. */
  spent: boolean;
  pending: boolean;
}

/**
 * The same budget shared by every instance on one database (issue 33): a flood split among N instances spends one
 * budget, not N. Each instance leases failures in blocks (`Store.leaseBudget`, one round trip, in windows by the
 * database's clock) and counts from its block in memory; whether an address has spent it is known here, so the
 * request path never waits for the database. A failure past the block held is counted at once and owed to the next
 * block. The error, written down in docs/limits.md: the instances together answer at most the budget with 401, plus
 * on each instance the failures that arrive in the one round trip in which it learns the budget is spent; and they
 * may answer 429 up to `(N - 1) × block` failures early (the blocks the other instances hold unspent). While the
 * database is away, nothing is counted (its key lookups answer 503 then anyway).
 */
export class SharedFailureBudget implements FailedAuthenticationBudget {
  readonly windowSeconds: number;
  readonly #store: Pick<Store, 'leaseBudget'>;
  readonly #scope: string;
  readonly #digest: (address: string) => Promise<string>;
  readonly #limit: number;
  readonly #block: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, SharedWindow>();
  #lastSweep = 0;

  /** `secrets`: the database keeps an HMAC of each address (`failure-keys`), never the address. */
  constructor(options: {
    store: Pick<Store, 'leaseBudget'>;
    secrets: SecretSource;
    scope: string;
    perAddress: number;
    windowSeconds: number;
    now: () => number;
    block?: number;
  }) {
    this.#store = options.store;
    this.#scope = options.scope;
    this.#digest = keyedDigest(options.secrets, 'failure-keys');
    this.#limit = options.perAddress;
    this.windowSeconds = options.windowSeconds;
    this.#block = options.block ?? failureBlock(options.perAddress);
    this.#now = options.now;
  }

  spent(address: string): SpentBudget | undefined {
    const now = this.#now();
    const window = this.#windows.get(address);
    if (!window || now >= window.endsAt || !window.spent || window.left > 0) return undefined;
    return { limit: this.#limit, resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) };
  }

  fail(address: string): void {
    const now = this.#now();
    let window = this.#windows.get(address);
    if (!window || (now >= window.endsAt && !window.pending)) {
      if (this.#windows.size >= MAX_ENTRIES) this.#lastSweep = Number.NEGATIVE_INFINITY;
      this.#sweep(now);
      if (this.#windows.size >= MAX_ENTRIES) this.#windows.clear();
      window = { left: 0, owed: 0, endsAt: Number.POSITIVE_INFINITY, spent: false, pending: false };
      this.#windows.set(address, window);
    }
    if (window.left > 0) {
      window.left--;
      return;
    }
    window.owed++;
    if (!window.pending && !window.spent) this.#lease(address, window);
  }

  #lease(address: string, window: SharedWindow): void {
    window.pending = true;
    const want = window.owed + this.#block;
    this.#digest(address)
      .then((digest) => this.#store.leaseBudget(`${this.#scope}:${digest}`, { limit: this.#limit, windowMs: this.windowSeconds * 1000, want }))
      .then(
        (lease) => {
          // Owed failures are paid from the block first; what is still owed waits for the next one.
          window.left += lease.granted;
          const paid = Math.min(window.owed, window.left);
          window.owed -= paid;
          window.left -= paid;
          window.spent = lease.granted < want;
          window.endsAt = this.#now() + lease.resetMs;
        },
        () => {
          // The database is away: forget the window rather than refuse on a count nobody shares.
          this.#windows.delete(address);
        },
      )
      .finally(() => {
        window.pending = false;
        if (window.owed > 0 && !window.spent && this.#windows.get(address) === window) this.#lease(address, window);
      });
  }

  /** Drops the windows that ended, once per window length, so memory follows the addresses that fail now. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.windowSeconds * 1000) return;
    this.#lastSweep = now;
    for (const [address, window] of this.#windows) if (now >= window.endsAt && !window.pending) this.#windows.delete(address);
  }
}

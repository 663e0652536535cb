import type { Quota } from '../http/kernel-env.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { keyedDigest, type SecretSource } from '../store/secrets.js';
import type { QuotaLease, QuotaRequest, Store } from '../store/store.js';

/**
 * How many requests an instance takes from the shared quota at a time: 2% of
 * the quota, at least 1, at most 100 (600 requests per 60 s: blocks of 12). It bounds
 * the error: the instances together never grant more than the quota in a
 * window, and refuse at most `(instances - 1) × block` requests early (the
 * unspent blocks the other instances hold), and only while those instances see
 * no more traffic for the key (docs/adr/0010).
 */
export function leaseBlock(limit: number): number {
  return Math.min(100, Math.max(1, Math.floor(limit / 50)));
}

interface Lease {
  /** Requests this instance may still grant from its block. */
  left: number;
  /** Requests granted to all instances in this window when the block was taken. */
  used: number;
  /** When the window ends, by this process's clock. */
  endsAt: number;
  /** The store granted nothing: the window's quota is spent; refuse locally until it ends. */
  spent: boolean;
  /** A block being fetched; requests arriving meanwhile wait for it. */
  pending?: Promise<void> | undefined;
}

/**
 * The per-key quota shared by every instance on one database, as fixed windows
 * counted by the database (aligned to its clock, so instances agree on the
 * window). Each instance leases the quota in small blocks (`Store.leaseQuota`,
 * one round trip) and grants requests from its block in memory: a database
 * round trip every `block` requests of a key instead of one per request, and
 * none at all once the window's quota is spent. A block lives only until its
 * window ends. When the store is unreachable the lease throws `StoreUnavailable`
 * (the request gets a 503), never a silent per-process quota.
 */
export class SharedRateLimiter implements RateLimiter {
  readonly #lease: (key: string, request: QuotaRequest) => Promise<QuotaLease>;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #block: number;
  readonly #now: () => number;
  readonly #leases = new Map<string, Lease>();
  #lastSweep = 0;

  /**
   * `store`: each API key's quota (`Store.leaseQuota`). With `budget`, any other quota, by a name of its own in the
   * shared budgets (`Store.leaseBudget` of `<budget.name>:<HMAC of the key>`, under `budget.secrets`' `failure-keys`,
   * so no session, account or address is written in clear): the account API's quota per session, device or address.
   */
  constructor(options: {
    store: Store;
    budget?: { name: string; secrets: SecretSource };
    requests: number;
    windowSeconds: number;
    now: () => number;
    block?: number;
  }) {
    const { store, budget } = options;
    if (budget === undefined) this.#lease = (key, request) => store.leaseQuota(key, request);
    else {
      const digest = keyedDigest(budget.secrets, 'failure-keys');
      this.#lease = async (key, request) => store.leaseBudget(`${budget.name}:${await digest(key)}`, request);
    }
    this.#limit = options.requests;
    this.#windowMs = options.windowSeconds * 1000;
    this.#block = options.block ?? leaseBlock(options.requests);
    this.#now = options.now;
  }

  /** Counts one request for the key: from memory while its block lasts, else after leasing another. */
  take(keyId: string): Quota | Promise<Quota> {
    const now = this.#now();
    const lease = this.#leases.get(keyId);
    if (lease && now < lease.endsAt && lease.pending === undefined) {
      if (lease.left > 0) return this.#grant(lease, now);
      if (lease.spent) return this.#refuse(lease, now);
    }
    return this.#takeSlowly(keyId);
  }

  async #takeSlowly(keyId: string): Promise<Quota> {
    // Each turn either grants, refuses, or waits for a block; a block that grants nothing marks the window spent.
    for (;;) {
      const now = this.#now();
      let lease = this.#leases.get(keyId);
      if (lease?.pending) {
        await lease.pending;
        continue;
      }
      if (lease && now < lease.endsAt) {
        if (lease.left > 0) return this.#grant(lease, now);
        if (lease.spent) return this.#refuse(lease, now);
      }
      this.#sweep(now);
      if (!lease || now >= lease.endsAt) {
        lease = { left: 0, used: 0, endsAt: Number.POSITIVE_INFINITY, spent: false };
        this.#leases.set(keyId, lease);
      }
      const current = lease;
      current.pending = this.#lease(keyId, { limit: this.#limit, windowMs: this.#windowMs, want: this.#block })
        .then((granted) => {
          const at = this.#now();
          // Only an empty block is renewed, so nothing of an older window is carried over.
          current.left += granted.granted;
          current.used = granted.used;
          current.endsAt = at + granted.resetMs;
          current.spent = granted.granted === 0;
        })
        .finally(() => {
          current.pending = undefined;
        });
      try {
        await current.pending;
      } catch (error) {
        this.#leases.delete(keyId);
        throw error;
      }
    }
  }

  #grant(lease: Lease, now: number): Quota {
    lease.left--;
    return { allowed: true, limit: this.#limit, remaining: Math.max(0, this.#limit - lease.used) + lease.left, resetSeconds: this.#resetSeconds(lease, now) };
  }

  #refuse(lease: Lease, now: number): Quota {
    return { allowed: false, limit: this.#limit, remaining: 0, resetSeconds: this.#resetSeconds(lease, now) };
  }

  #resetSeconds(lease: Lease, now: number): number {
    return Math.max(0, Math.ceil((lease.endsAt - now) / 1000));
  }

  /** Drops leases of ended windows once per window length, so memory follows the keys in use. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#windowMs) return;
    this.#lastSweep = now;
    for (const [key, lease] of this.#leases) {
      if (now >= lease.endsAt && lease.pending === undefined) this.#leases.delete(key);
    }
  }
}

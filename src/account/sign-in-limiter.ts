import { databaseSecrets, keyedDigest, type SecretSource } from '../store/secrets.js';
import { type AttemptRule, nextAttemptMs, type Store } from '../store/store.js';

/** A limit on attempts per key (an account, a client address, a device), taken before the work they pay for. */
export interface AttemptLimit {
  /** Takes one attempt for the key now: 0 when taken, else the seconds until the key may try again (nothing taken). */
  take(key: string): Promise<number>;
  /**
   * Whether the key could take an attempt now, taking none: 0, else the seconds to wait. A look before costly work
   * that comes before `take` (a sign-up's strength check), so a client past its limit costs no hashing; `take` still decides.
   */
  wait(key: string): Promise<number>;
  /** Gives back an attempt taken (it succeeded, or it was never carried out). */
  release(key: string): Promise<void>;
  /** Forgets the key's attempts. */
  clear(key: string): Promise<void>;
}

/** Forgotten counts are deleted from the store once every this many attempts a process takes. */
const PRUNE_EVERY_ATTEMPTS = 1_000;

/**
 * Attempts counted in the store (`attempt_counts`), so every instance on one database counts them together,
 * and taken in one statement before the password is checked: guesses sent at once, to one instance or
 * several, each count before the next is let through, so an account gets its configured number of checks in
 * all, not N times as many, nor as many as arrive before the first failure is written. `scope` keeps the
 * counts of one limit apart from another's (`account`, `client`, `device`, `sign-up`). Forgotten counts are
 * deleted now and then, so an attack cycling names leaves no lasting rows. The database holds an HMAC of each
 * key, never the key: a password typed into the name field, or a client's address, is not written to disk in clear.
 */
export class StoredAttemptLimit implements AttemptLimit {
  readonly #store: Store;
  readonly #scope: string;
  readonly #rule: AttemptRule;
  readonly #now: () => number;
  #sincePrune = 0;
  readonly #digest: (key: string) => Promise<string>;

  /** `secrets` gives the HMAC key (its current one: a rotation starts the counts afresh); by default the database's. */
  constructor(options: { store: Store; scope: string; rule: AttemptRule; now: () => number; secrets?: SecretSource }) {
    this.#store = options.store;
    this.#digest = keyedDigest(options.secrets ?? databaseSecrets(options.store), 'failure-keys');
    this.#scope = options.scope;
    this.#rule = options.rule;
    this.#now = options.now;
  }

  async take(key: string): Promise<number> {
    const now = this.#now();
    const stored = await this.#key(key);
    if (await this.#store.takeAttempt(stored, now, this.#rule)) {
      if (++this.#sincePrune >= PRUNE_EVERY_ATTEMPTS) {
        this.#sincePrune = 0;
        await this.#store.deleteAttemptsBefore(now - this.#rule.forgetMs, `${this.#scope}:`);
      }
      return 0;
    }
    const next = nextAttemptMs(await this.#store.findAttempts(stored), this.#rule, now);
    // Refused, though by now the count may allow one (a concurrent release, the clock moving on): a second at least.
    return Math.max(1, Math.ceil((next - now) / 1000));
  }

  async wait(key: string): Promise<number> {
    const now = this.#now();
    const next = nextAttemptMs(await this.#store.findAttempts(await this.#key(key)), this.#rule, now);
    return next <= now ? 0 : Math.max(1, Math.ceil((next - now) / 1000));
  }

  async release(key: string): Promise<void> {
    await this.#store.releaseAttempt(await this.#key(key));
  }

  async clear(key: string): Promise<void> {
    await this.#store.clearAttempts(await this.#key(key));
  }

  /** The stored key: the scope, then an HMAC of the key under a secret that lives with the database (shared by every instance). */
  async #key(key: string): Promise<string> {
    return `${this.#scope}:${await this.#digest(key)}`;
  }
}

/**
 * Takes one attempt from each of several limits (an account's and its client's), all or none: when one
 * refuses, the attempts the others gave are given back. Returns 0 when all were taken, else the longest wait
 * in seconds.
 */
export async function takeAll(attempts: ReadonlyArray<readonly [AttemptLimit, string]>): Promise<number> {
  const waits = await Promise.all(attempts.map(([limit, key]) => limit.take(key)));
  const wait = Math.max(0, ...waits);
  if (wait > 0) await Promise.all(attempts.filter((_, index) => waits[index] === 0).map(([limit, key]) => limit.release(key)));
  return wait;
}

/** Gives back one attempt to each limit (`takeAll`'s undo, when the attempt succeeded or was never carried out). */
export async function releaseAll(attempts: ReadonlyArray<readonly [AttemptLimit, string]>): Promise<void> {
  await Promise.all(attempts.map(([limit, key]) => limit.release(key)));
}

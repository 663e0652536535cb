import type { KeyCredential } from './store.js';

/** Keys the cache may hold before it starts over; bounds memory whatever callers send. */
const KNOWN_KEYS = 10_000;
/** Digests known not to be keys, kept apart so a flood of made-up keys never pushes a real key out. */
const UNKNOWN_DIGESTS = 10_000;

/**
 * The one cache of API keys (ADR 0023): each digest looked up, with the key it belongs to or the fact
 * that it belongs to none. It holds digests only, never a key. Its invalidation is `CachedStore`'s:
 * everything is forgotten at once when the change signal reports another writer's commit; a key this
 * store writes itself (made, revoked, rolled) is forgotten alone, so one user's key churn does not
 * send every other key back to the database; a last-use time, the one field the server writes on its
 * own, is kept in step instead.
 */
export class KeyCache {
  readonly #known = new Map<string, KeyCredential>();
  readonly #unknown = new Set<string>();
  readonly #byId = new Map<string, KeyCredential>();
  /** Each known key's map key, by its id: what a write naming a key by id forgets. */
  readonly #nameById = new Map<string, string>();
  /** Each digest Buffer's map key while that Buffer lives: a kept-alive connection presents one Buffer again and again. */
  readonly #names = new WeakMap<Buffer, string>();
  #hits = 0;
  #misses = 0;

  /** The cached key, `null` for a digest known to be no key, `undefined` when the cache does not know. */
  get(digest: Buffer): KeyCredential | null | undefined {
    const name = this.#nameOf(digest);
    return this.#known.get(name) ?? (this.#unknown.has(name) ? null : undefined);
  }

  /** `get`, counted as a hit or a miss (`lookups`): the request path's lookup; `get` alone is a peek. */
  find(digest: Buffer): KeyCredential | null | undefined {
    const found = this.get(digest);
    if (found === undefined) this.#misses++;
    else this.#hits++;
    return found;
  }

  /** Lookups by `find` since the process started, for the metrics. */
  lookups(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /** Remembers what the store answered for the digest. */
  remember(digest: Buffer, key: KeyCredential | undefined): void {
    const name = this.#nameOf(digest);
    if (key) {
      if (this.#known.size >= KNOWN_KEYS) {
        this.#known.clear();
        this.#byId.clear();
        this.#nameById.clear();
      }
      this.#known.set(name, key);
      this.#byId.set(key.id, key);
      this.#nameById.set(key.id, name);
    } else {
      if (this.#unknown.size >= UNKNOWN_DIGESTS) this.#unknown.clear();
      this.#unknown.add(name);
    }
  }

  /** Keeps a cached key's last use in step with the store's, rather than forgetting everything. */
  touched(keyId: string, at: string): void {
    const cached = this.#byId.get(keyId);
    if (cached) cached.lastUsedAt = at;
  }

  #nameOf(digest: Buffer): string {
    let name = this.#names.get(digest);
    if (name === undefined) {
      name = nameOf(digest);
      this.#names.set(digest, name);
    }
    return name;
  }

  clear(): void {
    this.#known.clear();
    this.#unknown.clear();
    this.#byId.clear();
    this.#nameById.clear();
  }

  /** Forgets what the cache knows of one digest (a key just made with it may be remembered as no key). */
  forgetDigest(digest: Buffer): void {
    const name = this.#nameOf(digest);
    const key = this.#known.get(name);
    this.#known.delete(name);
    this.#unknown.delete(name);
    if (key) this.#forgetId(key.id);
  }

  /** Forgets one key, named by its id (revoked, rolled): the next lookup of its digest asks the store. */
  forgetKey(keyId: string): void {
    const name = this.#nameById.get(keyId);
    if (name !== undefined) this.#known.delete(name);
    this.#forgetId(keyId);
  }

  #forgetId(keyId: string): void {
    this.#byId.delete(keyId);
    this.#nameById.delete(keyId);
  }
}

/** The map key of a digest: its bytes as a string, one character per byte (cheaper than base64, same identity). */
function nameOf(digest: Buffer): string {
  return digest.toString('latin1');
}

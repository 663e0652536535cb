import type { Item } from '../contract/types.js';
import { KeyCache } from './key-cache.js';
import type {
  ChangeSignal,
  Changes,
  KeyCredential,
  KeyRoll,
  KeySource,
  KeySummary,
  ListScope,
  NewKeyOptions,
  PageQuery,
  PasswordChange,
  SessionRecord,
  Store,
  StoreStats,
} from './store.js';

/** Sessions the cache may hold before it starts over; bounds memory whatever callers send. */
const SESSION_CACHE_ENTRIES = 10_000;
/**
 * What the page cache may hold, by the estimate of `pageBytes`. Bounded by size, not by a number
 * of pages: one key paging through a large account with full pages pinned about 50 MiB when
 * the bound was 1,000 pages. The oldest pages go first.
 */
export const PAGE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * The port's methods the cache has no part in: nothing it holds is read by them or changed by them. Each is the
 * engine's own, forwarded by the constructor, so a query no cache holds is one name here. The class's type makes every
 * port method either named here or written in the class, so a new write cannot pass the cache unseen.
 */
const PASS_THROUGH = [
  // Keys as their owner lists them, and their events: the cache holds keys by digest only, for the bearer check.
  'listKeys',
  'listKeyPage',
  'findKey',
  'countActiveKeys',
  'listKeyEvents',
  // Writes events only, which are never cached.
  'recordExpiries',
  // Changes whether the owner's list shows a key, which no cache holds.
  'removeKey',
  // Read now and then by the settings page; a cached list would need forgetting on every sign-in.
  'listSessions',
  // Users and their password hashes: nothing cached holds a hash.
  'createUser',
  'findUserByName',
  'findUserCredential',
  'setPasswordHash',
  'countUsers',
  // Counters, read and written only where they are counted: nothing cached depends on them.
  'leaseQuota',
  'leaseBudget',
  'deleteBudgetsBefore',
  'takeAttempt',
  'releaseAttempt',
  'findAttempts',
  'clearAttempts',
  'deleteAttemptsBefore',
  'readMeta',
  'writeMeta',
  'secret',
  'ping',
] as const satisfies readonly (keyof Store)[];

export interface CachedStore extends Pick<Store, (typeof PASS_THROUGH)[number]> {}

/**
 * Serves key and session lookups and list pages from memory while the data is unchanged,
 * over any store. It forgets everything when the change signal says another
 * writer has committed, and on its own writes. Every lookup asks the signal
 * first, so what another writer changed is seen as soon as the signal reports it:
 * within `SQLITE_CHANGE_CHECK_MS` on SQLite, when the notification arrives on PostgreSQL.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor forwards each method the interface names to the engine's (PASS_THROUGH).
export class CachedStore implements Store {
  readonly #inner: Store;
  readonly #changes: ChangeSignal;
  /** Bumped on every forget, so a read that started before it cannot refill the cache with old data. */
  #generation = 0;
  readonly #keys = new KeyCache();
  readonly #pages = new Map<string, { items: Item[]; bytes: number }>();
  #pageBytes = 0;
  readonly #sessionsByDigest = new Map<string, SessionRecord | null>();

  constructor(inner: Store, changes: ChangeSignal) {
    this.#inner = inner;
    this.#changes = changes;
    // Looked up on each call, not bound once: the engine (or a test's stand-in) is asked for the method it has then.
    for (const name of PASS_THROUGH)
      Object.defineProperty(this, name, {
        value: (...args: unknown[]) => (inner[name] as (...args: unknown[]) => unknown).apply(inner, args),
        writable: true,
        configurable: true,
      });
  }

  #checkForChanges(): void {
    const changes = this.#changes.changes();
    if (changes !== undefined) this.#forgetChanges(changes);
  }

  /**
   * Forgets what another writer changed: each key named alone (issue 33: under one instance's create/revoke churn,
   * forgetting everything sent every other instance's keys back to the database), pages when items or shares
   * changed, sessions when sessions did; everything when the signal cannot tell.
   */
  #forgetChanges(changes: Changes): void {
    if (changes === 'everything') {
      this.#forget();
      return;
    }
    this.#generation++;
    for (const digest of changes.digests) this.#keys.forgetDigest(digest);
    if (changes.tables.has('api_keys')) this.#keys.clear();
    if (changes.tables.has('items') || changes.tables.has('shares')) {
      this.#pages.clear();
      this.#pageBytes = 0;
    }
    if (changes.tables.has('sessions') || changes.tables.has('users')) this.#sessionsByDigest.clear();
  }

  #forget(): void {
    this.#generation++;
    this.#keys.clear();
    this.#pages.clear();
    this.#pageBytes = 0;
    this.#sessionsByDigest.clear();
  }

  async findKeyByDigest(digest: Buffer): Promise<KeyCredential | undefined> {
    this.#checkForChanges();
    const known = this.#keys.find(digest);
    if (known !== undefined) return known ?? undefined;
    const generation = this.#generation;
    const key = await this.#inner.findKeyByDigest(digest);
    if (generation === this.#generation) this.#keys.remember(digest, key);
    return key;
  }

  cachedKeyByDigest(digest: Buffer): KeyCredential | null | undefined {
    this.#checkForChanges();
    // A miss is counted by the `findKeyByDigest` that follows it, not here.
    return this.#keys.get(digest) === undefined ? undefined : this.#keys.find(digest);
  }

  peekKeyByDigest(digest: Buffer): KeyCredential | null | undefined {
    return this.#keys.get(digest);
  }

  async touchKey(keyId: string, at: string): Promise<void> {
    await this.#inner.touchKey(keyId, at);
    // Only the last-use time changed: keep the cached record in step rather than forget everything.
    this.#keys.touched(keyId, at);
  }

  async listItems(scope: ListScope, query: PageQuery): Promise<Item[]> {
    this.#checkForChanges();
    const cacheKey = `${scope} ${query.userId} ${query.sort} ${query.limit} ${query.after?.createdAt ?? ''} ${query.after?.id ?? ''}`;
    let items = this.#pages.get(cacheKey)?.items;
    if (items === undefined) {
      const generation = this.#generation;
      items = await this.#inner.listItems(scope, query);
      if (generation === this.#generation) this.#rememberPage(cacheKey, items);
    }
    // Callers get their own array: a cached page must not change under them.
    return items.slice();
  }

  /** Keeps a page, dropping the oldest ones until all fit in `PAGE_CACHE_BYTES`; a page larger than that is not kept. */
  #rememberPage(cacheKey: string, items: Item[]): void {
    const bytes = pageBytes(cacheKey, items);
    if (bytes > PAGE_CACHE_BYTES) return;
    const previous = this.#pages.get(cacheKey);
    if (previous) {
      this.#pages.delete(cacheKey);
      this.#pageBytes -= previous.bytes;
    }
    for (const [oldest, page] of this.#pages) {
      if (this.#pageBytes + bytes <= PAGE_CACHE_BYTES) break;
      this.#pages.delete(oldest);
      this.#pageBytes -= page.bytes;
    }
    // Kept items never change: frozen, so the answer's serialiser may remember their text (`src/http/json-text.ts`).
    for (const item of items) Object.freeze(item);
    this.#pages.set(cacheKey, { items, bytes });
    this.#pageBytes += bytes;
  }

  // A key write changes that key alone: no page and no session reads a key, so only the key is forgotten (issue 33:
  // under create/revoke churn, forgetting everything sent every other key back to the database). The generation is
  // bumped all the same, so a lookup of that key that began before the write cannot put its old answer back.

  async createKey(userId: string, digest: Buffer, hint: string, at: string, options?: NewKeyOptions): Promise<KeySummary> {
    const created = await this.#inner.createKey(userId, digest, hint, at, options);
    this.#generation++;
    this.#keys.forgetDigest(digest);
    return created;
  }

  async revokeKey(keyId: string, at: string, options?: { userId?: string; source?: KeySource }): Promise<boolean> {
    const revoked = await this.#inner.revokeKey(keyId, at, options);
    this.#generation++;
    this.#keys.forgetKey(keyId);
    return revoked;
  }

  async rollKey(roll: KeyRoll): Promise<{ previous: KeySummary; next: KeySummary } | undefined> {
    const rolled = await this.#inner.rollKey(roll);
    this.#generation++;
    this.#keys.forgetKey(roll.keyId);
    this.#keys.forgetDigest(roll.next.digest);
    return rolled;
  }

  async findSessionByDigest(digest: Buffer): Promise<SessionRecord | undefined> {
    this.#checkForChanges();
    const cacheKey = digest.toString('base64');
    const cached = this.#sessionsByDigest.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    const generation = this.#generation;
    const session = (await this.#inner.findSessionByDigest(digest)) ?? null;
    if (generation === this.#generation) {
      if (this.#sessionsByDigest.size >= SESSION_CACHE_ENTRIES) this.#sessionsByDigest.clear();
      this.#sessionsByDigest.set(cacheKey, session);
    }
    return session ?? undefined;
  }

  async touchSession(sessionId: string, at: string): Promise<void> {
    await this.#inner.touchSession(sessionId, at);
    // Only the last-seen time changed: keep the cached record in step rather than forget everything.
    for (const session of this.#sessionsByDigest.values()) if (session?.id === sessionId && session.lastSeenAt < at) session.lastSeenAt = at;
  }

  async createSession(userId: string, digest: Buffer, at: string, expiresAt: string, credentialVersion?: number): Promise<SessionRecord> {
    return this.#afterWrite(await this.#inner.createSession(userId, digest, at, expiresAt, credentialVersion));
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    return this.#afterWrite(await this.#inner.deleteSession(sessionId));
  }

  async deleteEndedSessions(at: string, idleBefore: string): Promise<number> {
    const deleted = await this.#inner.deleteEndedSessions(at, idleBefore);
    if (deleted > 0) this.#forget();
    return deleted;
  }

  async deleteUserSession(userId: string, sessionId: string): Promise<boolean> {
    return this.#afterWrite(await this.#inner.deleteUserSession(userId, sessionId));
  }

  async deleteOtherSessions(userId: string, keepSessionId: string): Promise<number> {
    return this.#afterWrite(await this.#inner.deleteOtherSessions(userId, keepSessionId));
  }

  async createItem(ownerId: string, title: string, createdAt: string): Promise<Item> {
    return this.#afterWrite(await this.#inner.createItem(ownerId, title, createdAt));
  }

  async shareItem(itemId: string, withUserId: string, at: string): Promise<void> {
    this.#afterWrite(await this.#inner.shareItem(itemId, withUserId, at));
  }

  async deleteKeyHistoryBefore(before: string): Promise<{ events: number; keys: number }> {
    const deleted = await this.#inner.deleteKeyHistoryBefore(before);
    if (deleted.keys > 0) this.#forget();
    return deleted;
  }

  /** Forgets what it holds: the user's sessions ended (cached ones must not be served) and, when asked, keys were revoked. */
  async changePassword(change: Parameters<Store['changePassword']>[0]): Promise<PasswordChange> {
    return this.#afterWrite(await this.#inner.changePassword(change));
  }

  stats(): StoreStats {
    return { ...this.#inner.stats?.(), keyCache: this.#keys.lookups() };
  }

  async close(): Promise<void> {
    this.#forget();
    await this.#changes.close?.();
    await this.#inner.close();
  }

  /** Our own writes do not trip the change signal (it reports other writers), so forget here. */
  #afterWrite<T>(result: T): T {
    this.#forget();
    return result;
  }
}

/** Per object, per string and per array slot, about what V8 spends beside the characters (measured: about 190 bytes per item of four strings). */
const OBJECT_OVERHEAD = 64;
const STRING_OVERHEAD = 32;

/**
 * An upper estimate of the memory a cached page keeps: two bytes per character (strings outside
 * Latin-1 take two) plus V8's overhead per item, per string field and per other field.
 * `test/store/page-cache-memory.slow.test.ts` holds it to the heap it really keeps.
 */
function pageBytes(cacheKey: string, items: readonly Item[]): number {
  let bytes = OBJECT_OVERHEAD + STRING_OVERHEAD + 2 * cacheKey.length;
  for (const item of items) {
    bytes += OBJECT_OVERHEAD;
    for (const value of Object.values(item)) bytes += typeof value === 'string' ? STRING_OVERHEAD + 2 * value.length : 8;
  }
  return bytes;
}

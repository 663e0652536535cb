import type { Item, Sort } from '../contract/types.js';

export interface User {
  id: string;
  name: string;
  createdAt: string;
}

/** A user and the hash of their password, for sign-in only; `passwordHash` is null for users the keys CLI made (they cannot sign in). */
export interface UserCredential {
  user: User;
  passwordHash: string | null;
  /**
   * Bumped by every password change (`changePassword`). A session is started only under the version its sign-in
   * read (`createSession`), and lives only while that is still the user's; a device cookie is signed with it.
   */
  credentialVersion: number;
}

/** What a password change did (`Store.changePassword`). */
export interface PasswordChange {
  /** The user's credential version now. */
  credentialVersion: number;
  /** Other sessions of the user that ended. */
  sessionsEnded: number;
  /** Keys revoked with it (none unless asked). */
  keysRevoked: number;
}

/** How a key changed: through the web application, the operator's CLI, a request to the public API, or time passing. */
export type KeySource = 'web' | 'cli' | 'api' | 'system';
export type KeyEventType = 'created' | 'rolled' | 'revoked' | 'expired' | 'first_used';

/** What the server needs to know about a key presented on a request. */
export interface KeyCredential {
  id: string;
  userId: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** `null` for keys made before keys expired: they work until revoked. */
  expiresAt: string | null;
  /** Set when the key was rolled: it works until `expiresAt`, the end of the overlap. */
  rolledAt: string | null;
}

/** A key as its owner sees it in a list: never the key itself. */
export interface KeySummary {
  id: string;
  userId: string;
  name: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  rolledAt: string | null;
  /** The key that replaced this one when it was rolled. */
  replacedBy: string | null;
}

/** What a new key is called, when it stops working, and who made it. */
export interface NewKeyOptions {
  /** Default `CLI key`. */
  name?: string;
  /** Default `null`: never expires. */
  expiresAt?: string | null;
  /** Default `cli`. */
  source?: KeySource;
  /**
   * Refuse (`ActiveKeyLimitReached`) when the user has this many active keys already. The count and the
   * insert are one step for every writer on the database, however many create keys at once. Default: no cap.
   */
  maxActive?: number;
}

/** Where a page of a user's key list starts: strictly after this key in the list's order (see `Store.listKeyPage`). */
export interface KeyPosition {
  /** Whether the key was active at the list's moment (`asOf`): the active ones come first. */
  active: boolean;
  createdAt: string;
  id: string;
}

/** A roll: the old key stops at `previousExpiresAt`, the new one (same name) is created in the same transaction. */
export interface KeyRoll {
  userId: string;
  keyId: string;
  at: string;
  previousExpiresAt: string;
  next: { digest: Buffer; hint: string; expiresAt: string };
  source: KeySource;
}

/** One entry of a user's key audit trail. */
export interface KeyEvent {
  id: string;
  type: KeyEventType;
  at: string;
  source: KeySource;
  keyId: string;
  keyName: string;
  keyHint: string;
}

/** A session as the server finds it by its cookie's digest. */
export interface SessionRecord {
  id: string;
  user: User;
  createdAt: string;
  lastSeenAt: string;
  /** The absolute expiry; the idle expiry is `lastSeenAt` plus the idle timeout. */
  expiresAt: string;
}

/** Where a page starts: strictly after (asc) or before (desc) this item in the order. */
export interface Position {
  createdAt: string;
  id: string;
}

export interface PageQuery {
  userId: string;
  sort: Sort;
  /** Rows to return; the caller asks for one more than the page to learn whether another follows. */
  limit: number;
  after?: Position;
}

export type ListScope = 'own' | 'shared';

/** What a caller asks of a key's shared quota: up to `want` more requests in the current fixed window. */
export interface QuotaRequest {
  limit: number;
  windowMs: number;
  want: number;
}

/** What the store granted: `granted` of `want` (0 when the window's quota is spent). */
export interface QuotaLease {
  granted: number;
  /** Requests granted to all holders in this window, this lease included. */
  used: number;
  /** Milliseconds until the window ends, by the store's clock. */
  resetMs: number;
}

/**
 * How a count of attempts limits its key (an account, a client address, a device): `free` attempts, then each
 * further one waits `backoffMs` after the latest, doubled for each attempt past `free`, at most `maxBackoffMs`.
 * The count is forgotten `forgetMs` after its latest attempt.
 */
export interface AttemptRule {
  free: number;
  backoffMs: number;
  maxBackoffMs: number;
  forgetMs: number;
}

/** The attempts counted for one key since its count began. */
export interface AttemptCount {
  /** When the count began (milliseconds since the epoch). */
  startMs: number;
  attempts: number;
  /** When the latest attempt was taken. */
  lastMs: number;
}

/** The most doublings of a backoff: past it the wait is `maxBackoffMs` anyway, and the SQL's shift stays in range. */
export const MAX_DOUBLINGS = 30;

/**
 * When the key may next take an attempt: at once (`atMs` itself) while its count has free attempts or is
 * forgotten, else its latest attempt plus the backoff. The stores' SQL decides the same in one statement.
 */
export function nextAttemptMs(count: AttemptCount | undefined, rule: AttemptRule, atMs: number): number {
  if (!count || atMs - count.lastMs >= rule.forgetMs || count.attempts < rule.free) return atMs;
  const doublings = Math.min(Math.max(count.attempts - rule.free, 0), MAX_DOUBLINGS);
  return Math.max(atMs, Math.min(count.lastMs + Math.min(rule.maxBackoffMs, rule.backoffMs * 2 ** doublings), count.lastMs + rule.forgetMs));
}

/** A `meta` key for `readMeta`/`writeMeta`; throws for a secret's own (`secret:…`), which only `secret()` touches. */
export function notSecret(key: string): string {
  if (key.startsWith('secret:')) throw new Error(`meta key ${key} is a secret's; use secret()`);
  return key;
}

/** `createKey` with `maxActive`: the user has that many active keys already, so none was made. */
export class ActiveKeyLimitReached extends Error {
  readonly active: number;

  constructor(active: number) {
    super(`the user has ${active} active keys already`);
    this.name = 'ActiveKeyLimitReached';
    this.active = active;
  }
}

/**
 * `createSession` was given the credential version a sign-in read, and the user's is another by now: the password
 * changed after it was checked. No session was made.
 */
export class CredentialChanged extends Error {
  constructor(userId: string) {
    super(`the credentials of user ${userId} changed since they were checked`);
    this.name = 'CredentialChanged';
  }
}

/**
 * The database refused a value the request carried, as it cannot store or read it (a U+0000 in a text, a time
 * out of its range). The contract's patterns should have refused it first; the app answers `422`, not `500`.
 */
export class UnstorableInput extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnstorableInput';
  }
}

/**
 * The store cannot be reached or cannot answer in time (the database is down,
 * restarting, out of connections, or timed out). The server answers `503` with
 * `Retry-After` rather than a `500`: trying again shortly is the right thing to do.
 */
export class StoreUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}

/**
 * The storage the service needs: a port that any engine can stand behind
 * (embedded SQLite, or PostgreSQL shared by several instances). Every call is asynchronous so that an engine
 * over the network fits without changing a caller; an embedded engine simply
 * answers at once. Engines keep only their queries here: caching is a decorator
 * over any store (`cached-store.ts`).
 */
export interface Store {
  findKeyByDigest(digest: Buffer): Promise<KeyCredential | undefined>;
  /**
   * What a cache in front of the engine already knows about a key, without asking the engine:
   * the key, `null` for a key known not to exist, `undefined` for "not known". Engines without
   * a cache leave it out.
   */
  peekKeyByDigest?(digest: Buffer): KeyCredential | null | undefined;
  /**
   * `findKeyByDigest` answered from a cache in front of the engine, with no promise: the change signal is asked
   * first, as on every lookup; `undefined` when the engine has to be asked (then call `findKeyByDigest`). Lets the
   * usual request, a known key on a warm cache, be checked without a microtask turn. Engines without a cache leave it out.
   */
  cachedKeyByDigest?(digest: Buffer): KeyCredential | null | undefined;
  /** Records that a key was used (and, the first time, a `first_used` event); the server calls it at most once a minute per key. */
  touchKey(keyId: string, at: string): Promise<void>;
  /** Makes a key and its `created` event; with `maxActive`, only below that many active keys (else `ActiveKeyLimitReached`). */
  createKey(userId: string, digest: Buffer, hint: string, at: string, options?: NewKeyOptions): Promise<KeySummary>;
  /** Every key of a user, oldest first, those removed from the user's list included (the operator's view). */
  listKeys(userId: string): Promise<KeySummary[]>;
  /**
   * One page of the user's key list: the keys active at `asOf` (neither revoked nor expired then), newest
   * first, then the others, newest first; strictly after `after` when given; at most `limit`. Keys the user
   * removed from the list are left out.
   */
  listKeyPage(userId: string, query: { asOf: string; limit: number; after?: KeyPosition }): Promise<KeySummary[]>;
  /** One key, only if it belongs to this user and was not removed from their list. */
  findKey(userId: string, keyId: string): Promise<KeySummary | undefined>;
  /**
   * Takes a key that no longer works at `at` (revoked or expired) off its user's list; its events stay.
   * `active` (nothing changed) for a key that still works; undefined when the user has no such key.
   */
  removeKey(userId: string, keyId: string, at: string): Promise<'removed' | 'active' | undefined>;
  /** Keys of the user that are neither revoked nor expired at `at`. */
  countActiveKeys(userId: string, at: string): Promise<number>;
  /**
   * Revokes a key and records a `revoked` event. Returns false when no key has
   * that id (or it is not `userId`'s, when given) or it was already revoked.
   */
  revokeKey(keyId: string, at: string, options?: { userId?: string; source?: KeySource }): Promise<boolean>;
  /**
   * Replaces an active key that was not rolled before with a new one, in one
   * transaction, with `rolled` and `created` events. Undefined when the key is
   * not the user's or can no longer be rolled.
   */
  rollKey(roll: KeyRoll): Promise<{ previous: KeySummary; next: KeySummary } | undefined>;
  /** Records an `expired` event for each key of the user whose expiry has passed by `at` (once per key). */
  recordExpiries(userId: string, at: string): Promise<void>;
  /**
   * Forgets key history older than `before`: the key events before it, and the keys their owners removed from
   * their lists before it (with what events they have left). Returns how many of each went.
   */
  deleteKeyHistoryBefore(before: string): Promise<{ events: number; keys: number }>;
  /** A user's key events, newest first, strictly before `before` when given. */
  listKeyEvents(userId: string, query: { limit: number; before?: { at: string; id: string } }): Promise<KeyEvent[]>;

  createUser(name: string, at: string, passwordHash?: string): Promise<User>;
  findUserByName(name: string): Promise<User | undefined>;
  /** The user and their password hash, for sign-in. */
  findUserCredential(name: string): Promise<UserCredential | undefined>;
  /**
   * Replaces a user's password hash (a hash made again from the password's normalized form, at sign-in), without
   * bumping the credential version; with `credentialVersion`, only while it is still the user's (so a rehash that
   * meets a password change never puts the old password back). True when it was replaced.
   */
  setPasswordHash(userId: string, passwordHash: string, credentialVersion?: number): Promise<boolean>;
  /**
   * A password change, in one transaction: the new hash, the credential version bumped, every session of the user
   * but `keepSessionId` ended and that one moved to the new version, and with `revokeKeys` every active key of the
   * user revoked (each with its `revoked` event). A session being started at once under the old version is either
   * ended by it or never made (`createSession` waits for it, then refuses): on every instance on the database.
   */
  changePassword(change: {
    userId: string;
    passwordHash: string;
    keepSessionId: string;
    revokeKeys?: { at: string; source: KeySource };
  }): Promise<PasswordChange>;
  countUsers(): Promise<number>;

  /**
   * Starts a session for the cookie token whose SHA-256 digest is given, under the user's credential version:
   * with `credentialVersion` (the one the sign-in read with the hash it checked), only if that is still the user's,
   * else `CredentialChanged` and no session. Read and insert are one step for every writer on the database.
   */
  createSession(userId: string, digest: Buffer, at: string, expiresAt: string, credentialVersion?: number): Promise<SessionRecord>;
  /** The session with this digest, only while its credential version is its user's (a session made by code of schema version 8 has none, and is found). */
  findSessionByDigest(digest: Buffer): Promise<SessionRecord | undefined>;
  /** Records activity on a session (its idle expiry moves on); called at most once a minute per session. */
  touchSession(sessionId: string, at: string): Promise<void>;
  /** Ends a session; false when there was none. */
  deleteSession(sessionId: string): Promise<boolean>;
  /** Deletes sessions past their absolute expiry or idle since before `idleBefore`; returns how many. */
  deleteEndedSessions(at: string, idleBefore: string): Promise<number>;
  /**
   * A user's live sessions (absolute expiry after `at`, last seen after `idleBefore`), newest first, at most
   * `limit`.
   */
  listSessions(userId: string, query: { at: string; idleBefore: string; limit: number }): Promise<SessionRecord[]>;
  /** Ends one session, only if it is this user's; false when the user has none with that id. */
  deleteUserSession(userId: string, sessionId: string): Promise<boolean>;
  /** Ends every session of the user but `keepSessionId` (a password change); returns how many. */
  deleteOtherSessions(userId: string, keepSessionId: string): Promise<number>;

  createItem(ownerId: string, title: string, createdAt: string): Promise<Item>;
  shareItem(itemId: string, withUserId: string, at: string): Promise<void>;
  listItems(scope: ListScope, query: PageQuery): Promise<Item[]>;

  /**
   * Takes up to `want` requests from a key's quota for the current fixed window, shared by every
   * process on this database: the shared rate limiter leases quota in small blocks (docs/adr/0010).
   */
  leaseQuota(keyId: string, request: QuotaRequest): Promise<QuotaLease>;

  /**
   * Takes up to `want` from a budget shared by every process on this database (`key` names the budget and whom it
   * counts, e.g. `failed-authentication:<address>`), in fixed windows of `windowMs` by the database's clock, `limit`
   * per window; the failed-authentication budget leases it in blocks as the key quota does (`SharedFailureBudget`).
   */
  leaseBudget(key: string, request: QuotaRequest): Promise<QuotaLease>;
  /** Deletes the shared budgets whose window ended before `beforeMs`; returns how many. */
  deleteBudgetsBefore(beforeMs: number): Promise<number>;

  /**
   * Takes one attempt for `key` at `atMs` if `rule` allows one now (see {@link nextAttemptMs}), in one statement:
   * every process on this database counts together, and attempts sent at once are each counted before any is
   * let through, so N instances allow what one does. The count after it, or undefined when refused.
   */
  takeAttempt(key: string, atMs: number, rule: AttemptRule): Promise<AttemptCount | undefined>;
  /** Gives back one attempt taken (one that succeeded: a sign-in with the right password). */
  releaseAttempt(key: string): Promise<void>;
  /** The key's count, forgotten or not; undefined when it has none. */
  findAttempts(key: string): Promise<AttemptCount | undefined>;
  /** Forgets the key's count. */
  clearAttempts(key: string): Promise<void>;
  /** Deletes the counts whose key starts with `prefix` and whose latest attempt is before `beforeMs`; returns how many. */
  deleteAttemptsBefore(beforeMs: number, prefix: string): Promise<number>;

  /**
   * A value kept in `meta` beside the generated secrets (what each instance publishes about the secrets it
   * uses, `secrets.ts`); undefined when unset. Names starting `secret:` are the secrets' own, and refused.
   */
  readMeta(key: string): Promise<Buffer | undefined>;
  writeMeta(key: string, value: Buffer): Promise<void>;
  /** A named secret that lives as long as the database (e.g. the cursor signing key). */
  secret(name: string): Promise<Buffer>;
  /** Asks the database the most trivial question (`SELECT 1`); resolves once it answers. The readiness probe's check. */
  ping(): Promise<void>;
  /** The store's own counters, read when the metrics are scraped (nothing is counted for them on the request path but an integer). */
  stats?(): StoreStats;
  close(): Promise<void>;
}

/** What a store counts for the metrics: the key cache's lookups (`CachedStore`), and the PostgreSQL pool's connections. */
export interface StoreStats {
  keyCache?: { hits: number; misses: number };
  pool?: { max: number; total: number; idle: number; waiting: number };
}

/**
 * What other writers changed, as far as a change signal can tell: `everything` when it cannot say what (SQLite's
 * counter, a dropped listener, the backstop timer), else the keys (by digest) and the tables whose rows changed.
 */
export type Changes = 'everything' | { readonly digests: readonly Buffer[]; readonly tables: ReadonlySet<string> };

/**
 * Tells a cache that another writer (another process, another instance) may
 * have changed the data. Called on every lookup, so it must be cheap: SQLite's
 * counter (`PRAGMA data_version`) read at most every `SQLITE_CHANGE_CHECK_MS`,
 * a flag set by LISTEN/NOTIFY for PostgreSQL.
 */
export interface ChangeSignal {
  /** What changed since the previous call; undefined when nothing did. */
  changes(): Changes | undefined;
  /** Releases what the signal holds (PostgreSQL's listener connection); called when the store closes. */
  close?(): Promise<void>;
}

import type { Item, Sort } from '../contract/types.js';

export interface User {
  id: string;
  name: string;
  createdAt: string;
}

/** What the server needs to know about a key presented on a request. */
export interface KeyCredential {
  id: string;
  userId: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** A key as its owner sees it in a list: never the key itself. */
export interface KeySummary {
  id: string;
  userId: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
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
  /** Records that a key was used; the server calls it at most once a minute per key. */
  touchKey(keyId: string, at: string): Promise<void>;
  createKey(userId: string, digest: Buffer, hint: string, at: string): Promise<KeySummary>;
  listKeys(userId: string): Promise<KeySummary[]>;
  /** Returns false when no key has that id or it was already revoked. */
  revokeKey(keyId: string, at: string): Promise<boolean>;

  createUser(name: string, at: string): Promise<User>;
  findUserByName(name: string): Promise<User | undefined>;
  countUsers(): Promise<number>;

  createItem(ownerId: string, title: string, createdAt: string): Promise<Item>;
  shareItem(itemId: string, withUserId: string, at: string): Promise<void>;
  listItems(scope: ListScope, query: PageQuery): Promise<Item[]>;
  /** One item, if the user may see it (they own it, or it was shared with them); else undefined, whether or not it exists. */
  findVisibleItem(itemId: string, userId: string): Promise<Item | undefined>;

  /**
   * Takes up to `want` requests from a key's quota for the current fixed window, shared by every
   * process on this database: the shared rate limiter leases quota in small blocks (docs/adr/0010).
   */
  leaseQuota(keyId: string, request: QuotaRequest): Promise<QuotaLease>;

  /** A named secret that lives as long as the database (e.g. the cursor signing key). */
  secret(name: string): Promise<Buffer>;
  close(): Promise<void>;
}

/**
 * Tells a cache that another writer (another process, another instance) may
 * have changed the data. Called on every key check, so it must be cheap: a
 * counter read for SQLite (`PRAGMA data_version`), a flag set by LISTEN/NOTIFY
 * for a networked engine.
 */
export interface ChangeSignal {
  /** True when the data may have changed since the previous call. */
  changed(): boolean;
  /** Releases what the signal holds (PostgreSQL's listener connection); called when the store closes. */
  close?(): Promise<void>;
}

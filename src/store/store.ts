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

/**
 * The storage the service needs: a port that any engine can stand behind
 * (SQLite today, PostgreSQL next). Every call is asynchronous so that an engine
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
}

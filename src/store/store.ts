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
 * The storage the service needs, small enough that another engine can be added
 * behind it. Calls are synchronous because the embedded SQLite driver is; an
 * engine over the network would make these return promises.
 */
export interface Store {
  findKeyByDigest(digest: Buffer): KeyCredential | undefined;
  /** Records that a key was used; the server calls it at most once a minute per key. */
  touchKey(keyId: string, at: string): void;
  createKey(userId: string, digest: Buffer, hint: string, at: string): KeySummary;
  listKeys(userId: string): KeySummary[];
  /** Returns false when no key has that id or it was already revoked. */
  revokeKey(keyId: string, at: string): boolean;

  createUser(name: string, at: string): User;
  findUserByName(name: string): User | undefined;
  countUsers(): number;

  createItem(ownerId: string, title: string, createdAt: string): Item;
  shareItem(itemId: string, withUserId: string, at: string): void;
  listItems(scope: ListScope, query: PageQuery): Item[];

  /** A named secret that lives as long as the database (e.g. the cursor signing key). */
  secret(name: string): Buffer;
  close(): void;
}

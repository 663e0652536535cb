import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Item, Sort } from '../contract/types.js';
import { newId } from './ids.js';
import { MIGRATIONS } from './migrations.js';
import type { KeyCredential, KeySummary, ListScope, PageQuery, Store, User } from './store.js';

const ITEM_COLUMNS = 'i.id, i.title, i.owner_id AS ownerId, i.created_at AS createdAt';
const KEY_COLUMNS = 'id, user_id AS userId, hint, created_at AS createdAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt';

/** Opens (creating if needed) an SQLite database and applies pending migrations. */
export function openSqliteStore(location: string): Store {
  if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
  const db = new Database(location);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // The key CLI writes while the server runs; wait for the lock instead of failing.
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return new SqliteStore(db);
}

function migrate(db: Database.Database): void {
  const applied = db.pragma('user_version', { simple: true }) as number;
  if (applied > MIGRATIONS.length) {
    throw new Error(`the database is at schema version ${applied}, newer than this code (${MIGRATIONS.length}); upgrade the code`);
  }
  for (let version = applied; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] ?? '');
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

/** The list queries, one per scope, direction and start; prepared once. */
function listStatements(db: Database.Database) {
  const make = (scope: ListScope, sort: Sort, after: boolean) => {
    const direction = sort === 'asc' ? 'ASC' : 'DESC';
    const comparison = sort === 'asc' ? '>' : '<';
    const start = after ? `AND (i.created_at, i.id) ${comparison} (@createdAt, @id)` : '';
    const sql =
      scope === 'own'
        ? `SELECT ${ITEM_COLUMNS} FROM items i WHERE i.owner_id = @userId ${start}
           ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT @limit`
        : `SELECT ${ITEM_COLUMNS} FROM shares s JOIN items i ON i.id = s.item_id
           WHERE s.user_id = @userId AND i.owner_id <> s.user_id ${start}
           ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT @limit`;
    return db.prepare<Record<string, unknown>, Item>(sql);
  };
  const byScope = (scope: ListScope) => ({
    asc: { first: make(scope, 'asc', false), after: make(scope, 'asc', true) },
    desc: { first: make(scope, 'desc', false), after: make(scope, 'desc', true) },
  });
  return { own: byScope('own'), shared: byScope('shared') };
}

/** Entries the read caches may hold before they start over; bounds memory whatever callers send. */
const KEY_CACHE_ENTRIES = 10_000;
const PAGE_CACHE_ENTRIES = 1_000;
/** How long a version read by a key lookup stands for the database, for a page read in the same request. */
const VERSION_REUSE_MS = 1_000;

/**
 * Keys and list pages are served from memory while the database is unchanged.
 * SQLite's `PRAGMA data_version` changes whenever another connection (the keys
 * CLI, a second server) commits, and this store clears its caches on its own
 * writes. Every key lookup reads the version first, so a key revoked from another
 * process fails on its very next request; a page read in the same request reuses
 * that reading, so it is what the query would return when the request began.
 */
class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #list: ReturnType<typeof listStatements>;
  readonly #findKey: Database.Statement<[Buffer], KeyCredential>;
  readonly #touchKey: Database.Statement<[string, string]>;
  readonly #dataVersion: Database.Statement<[], number>;
  #seenVersion = -1;
  #seenAt = -Infinity;
  readonly #keysByDigest = new Map<string, KeyCredential | null>();
  readonly #keysById = new Map<string, KeyCredential>();
  readonly #pages = new Map<string, Item[]>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.#list = listStatements(db);
    this.#findKey = db.prepare('SELECT id, user_id AS userId, revoked_at AS revokedAt, last_used_at AS lastUsedAt FROM api_keys WHERE digest = ?');
    this.#touchKey = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** Reads the database's version and drops every cached read if another connection has committed since. */
  #checkFreshness(): void {
    const version = this.#dataVersion.get() as number;
    this.#seenAt = performance.now();
    if (version !== this.#seenVersion) {
      this.#seenVersion = version;
      this.#forget();
    }
  }

  #forget(): void {
    this.#keysByDigest.clear();
    this.#keysById.clear();
    this.#pages.clear();
  }

  findKeyByDigest(digest: Buffer): KeyCredential | undefined {
    this.#checkFreshness();
    const cacheKey = digest.toString('base64');
    let key = this.#keysByDigest.get(cacheKey);
    if (key === undefined) {
      key = this.#findKey.get(digest) ?? null;
      if (this.#keysByDigest.size >= KEY_CACHE_ENTRIES) {
        this.#keysByDigest.clear();
        this.#keysById.clear();
      }
      this.#keysByDigest.set(cacheKey, key);
      if (key) this.#keysById.set(key.id, key);
    }
    return key ?? undefined;
  }

  touchKey(keyId: string, at: string): void {
    this.#touchKey.run(at, keyId);
    // Our own write does not change data_version for us; keep the cached record in step.
    const cached = this.#keysById.get(keyId);
    if (cached) cached.lastUsedAt = at;
  }

  createKey(userId: string, digest: Buffer, hint: string, at: string): KeySummary {
    const id = newId('key');
    this.#db.prepare('INSERT INTO api_keys (id, user_id, digest, hint, created_at) VALUES (?, ?, ?, ?, ?)').run(id, userId, digest, hint, at);
    this.#forget();
    return { id, userId, hint, createdAt: at, lastUsedAt: null, revokedAt: null };
  }

  listKeys(userId: string): KeySummary[] {
    return this.#db.prepare<[string], KeySummary>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = ? ORDER BY created_at, id`).all(userId);
  }

  revokeKey(keyId: string, at: string): boolean {
    const revoked = this.#db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, keyId).changes === 1;
    this.#forget();
    return revoked;
  }

  createUser(name: string, at: string): User {
    const id = newId('usr');
    this.#db.prepare('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)').run(id, name, at);
    return { id, name, createdAt: at };
  }

  findUserByName(name: string): User | undefined {
    return this.#db.prepare<[string], User>('SELECT id, name, created_at AS createdAt FROM users WHERE name = ?').get(name);
  }

  countUsers(): number {
    return (this.#db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n;
  }

  createItem(ownerId: string, title: string, createdAt: string): Item {
    const id = newId('itm');
    this.#db.prepare('INSERT INTO items (id, owner_id, title, created_at) VALUES (?, ?, ?, ?)').run(id, ownerId, title, createdAt);
    this.#forget();
    return { id, title, ownerId, createdAt };
  }

  shareItem(itemId: string, withUserId: string, at: string): void {
    const item = this.#db.prepare<[string], { ownerId: string }>('SELECT owner_id AS ownerId FROM items WHERE id = ?').get(itemId);
    if (!item) throw new Error(`no item ${itemId}`);
    if (item.ownerId === withUserId) throw new Error('an item cannot be shared with its owner');
    this.#db.prepare('INSERT OR IGNORE INTO shares (user_id, item_id, created_at) VALUES (?, ?, ?)').run(withUserId, itemId, at);
    this.#forget();
  }

  listItems(scope: ListScope, query: PageQuery): Item[] {
    if (performance.now() - this.#seenAt > VERSION_REUSE_MS) this.#checkFreshness();
    const cacheKey = `${scope} ${query.userId} ${query.sort} ${query.limit} ${query.after?.createdAt ?? ''} ${query.after?.id ?? ''}`;
    let items = this.#pages.get(cacheKey);
    if (items === undefined) {
      const statements = this.#list[scope][query.sort];
      items = query.after
        ? statements.after.all({ userId: query.userId, limit: query.limit, createdAt: query.after.createdAt, id: query.after.id })
        : statements.first.all({ userId: query.userId, limit: query.limit });
      if (this.#pages.size >= PAGE_CACHE_ENTRIES) this.#pages.clear();
      this.#pages.set(cacheKey, items);
    }
    // Callers get their own array: a cached page must not change under them.
    return items.slice();
  }

  secret(name: string): Buffer {
    // INSERT OR IGNORE then SELECT: two processes starting at once agree on one secret.
    this.#db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(`secret:${name}`, randomBytes(32));
    return (this.#db.prepare('SELECT value FROM meta WHERE key = ?').get(`secret:${name}`) as { value: Buffer }).value;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

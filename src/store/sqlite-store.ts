import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import type { Item, Sort } from '../contract/types.js';
import { newId } from './ids.js';
import { MIGRATIONS } from './migrations.js';
import { prepareDatabaseFile } from './private-files.js';
import type { ChangeSignal, KeyCredential, KeySummary, ListScope, PageQuery, QuotaLease, QuotaRequest, Store, User } from './store.js';

/**
 * Where each field of the spec's `Item` lives. Typed against the generated
 * `Item`, so a field renamed or added in the spec breaks the build here, where
 * the SQL is, rather than at run time.
 */
const ITEM_COLUMNS = { id: 'i.id', title: 'i.title', ownerId: 'i.owner_id', createdAt: 'i.created_at' } as const satisfies Record<keyof Item, string>;
const KEY_SUMMARY_COLUMNS = {
  id: 'id',
  userId: 'user_id',
  hint: 'hint',
  createdAt: 'created_at',
  lastUsedAt: 'last_used_at',
  revokedAt: 'revoked_at',
} as const satisfies Record<keyof KeySummary, string>;
const KEY_CREDENTIAL_COLUMNS = { id: 'id', userId: 'user_id', revokedAt: 'revoked_at', lastUsedAt: 'last_used_at' } as const satisfies Record<keyof KeyCredential, string>;
const USER_COLUMNS = { id: 'id', name: 'name', createdAt: 'created_at' } as const satisfies Record<keyof User, string>;

/** `column AS "field", ...`: rows come back shaped as the type the columns were checked against. */
function selectList(columns: Readonly<Record<string, string>>): string {
  return Object.entries(columns)
    .map(([field, column]) => `${column} AS "${field}"`)
    .join(', ');
}

/** An opened SQLite database: the store's queries, and the signal that another connection has written. */
export interface SqliteEngine {
  store: Store;
  changes: ChangeSignal;
}

/** Opens (creating if needed) an SQLite database and applies pending migrations. */
export function openSqliteStore(location: string): SqliteEngine {
  if (location !== ':memory:') prepareDatabaseFile(location);
  const db = new Database(location);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // The key CLI writes while the server runs; wait for the lock instead of failing.
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return { store: new SqliteStore(db), changes: dataVersionSignal(db) };
}

/**
 * SQLite's `PRAGMA data_version` changes whenever another connection (the keys
 * CLI, a second server process) commits; this connection's own writes do not
 * change it, which is why the cache also forgets on its own writes.
 */
function dataVersionSignal(db: Database.Database): ChangeSignal {
  const read = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seen: number | undefined;
  return {
    changed() {
      const version = read.get() as number;
      if (version === seen) return false;
      seen = version;
      return true;
    },
  };
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
        ? `SELECT ${selectList(ITEM_COLUMNS)} FROM items i WHERE i.owner_id = @userId ${start}
           ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT @limit`
        : `SELECT ${selectList(ITEM_COLUMNS)} FROM shares s JOIN items i ON i.id = s.item_id
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

/** The store's queries, prepared once. No caching here: see `cached-store.ts`. */
class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #list: ReturnType<typeof listStatements>;
  readonly #findKey: Database.Statement<[Buffer], KeyCredential>;
  readonly #touchKey: Database.Statement<[string, string]>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#list = listStatements(db);
    this.#findKey = db.prepare(`SELECT ${selectList(KEY_CREDENTIAL_COLUMNS)} FROM api_keys WHERE digest = ?`);
    this.#touchKey = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  }

  async findKeyByDigest(digest: Buffer): Promise<KeyCredential | undefined> {
    return this.#findKey.get(digest);
  }

  async touchKey(keyId: string, at: string): Promise<void> {
    this.#touchKey.run(at, keyId);
  }

  async createKey(userId: string, digest: Buffer, hint: string, at: string): Promise<KeySummary> {
    const id = newId('key');
    this.#db.prepare('INSERT INTO api_keys (id, user_id, digest, hint, created_at) VALUES (?, ?, ?, ?, ?)').run(id, userId, digest, hint, at);
    return { id, userId, hint, createdAt: at, lastUsedAt: null, revokedAt: null };
  }

  async listKeys(userId: string): Promise<KeySummary[]> {
    return this.#db.prepare<[string], KeySummary>(`SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys WHERE user_id = ? ORDER BY created_at, id`).all(userId);
  }

  async revokeKey(keyId: string, at: string): Promise<boolean> {
    return this.#db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, keyId).changes === 1;
  }

  async createUser(name: string, at: string): Promise<User> {
    const id = newId('usr');
    this.#db.prepare('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)').run(id, name, at);
    return { id, name, createdAt: at };
  }

  async findUserByName(name: string): Promise<User | undefined> {
    return this.#db.prepare<[string], User>(`SELECT ${selectList(USER_COLUMNS)} FROM users WHERE name = ?`).get(name);
  }

  async countUsers(): Promise<number> {
    return (this.#db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n;
  }

  async createItem(ownerId: string, title: string, createdAt: string): Promise<Item> {
    const id = newId('itm');
    this.#db.prepare('INSERT INTO items (id, owner_id, title, created_at) VALUES (?, ?, ?, ?)').run(id, ownerId, title, createdAt);
    return { id, title, ownerId, createdAt };
  }

  async shareItem(itemId: string, withUserId: string, at: string): Promise<void> {
    const item = this.#db.prepare<[string], { ownerId: string }>('SELECT owner_id AS ownerId FROM items WHERE id = ?').get(itemId);
    if (!item) throw new Error(`no item ${itemId}`);
    if (item.ownerId === withUserId) throw new Error('an item cannot be shared with its owner');
    this.#db.prepare('INSERT OR IGNORE INTO shares (user_id, item_id, created_at) VALUES (?, ?, ?)').run(withUserId, itemId, at);
  }

  async listItems(scope: ListScope, query: PageQuery): Promise<Item[]> {
    const statements = this.#list[scope][query.sort];
    return query.after
      ? statements.after.all({ userId: query.userId, limit: query.limit, createdAt: query.after.createdAt, id: query.after.id })
      : statements.first.all({ userId: query.userId, limit: query.limit });
  }

  async findVisibleItem(itemId: string, userId: string): Promise<Item | undefined> {
    return this.#db
      .prepare<[string, string, string], Item>(
        `SELECT ${selectList(ITEM_COLUMNS)} FROM items i
         WHERE i.id = ? AND (i.owner_id = ? OR EXISTS (SELECT 1 FROM shares s WHERE s.item_id = i.id AND s.user_id = ?))`,
      )
      .get(itemId, userId, userId);
  }

  async leaseQuota(keyId: string, request: QuotaRequest): Promise<QuotaLease> {
    const now = Date.now();
    const currentWindow = Math.floor(now / request.windowMs);
    return this.#db.transaction(() => {
      const row = this.#db.prepare<[string], { window: number; used: number }>('SELECT window_index AS window, used FROM rate_limits WHERE key_id = ?').get(keyId);
      const window = row && row.window >= currentWindow ? row.window : currentWindow;
      const counted = row && row.window >= currentWindow ? row.used : 0;
      const granted = Math.min(request.want, Math.max(request.limit - counted, 0));
      this.#db
        .prepare('INSERT INTO rate_limits (key_id, window_index, used) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET window_index = excluded.window_index, used = excluded.used')
        .run(keyId, window, counted + granted);
      return { granted, used: counted + granted, resetMs: Math.max((window + 1) * request.windowMs - now, 0) };
    }).immediate();
  }

  async secret(name: string): Promise<Buffer> {
    // INSERT OR IGNORE then SELECT: two processes starting at once agree on one secret.
    this.#db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(`secret:${name}`, randomBytes(32));
    return (this.#db.prepare('SELECT value FROM meta WHERE key = ?').get(`secret:${name}`) as { value: Buffer }).value;
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Item, Sort } from '../contract/types.js';
import { newId } from './ids.js';
import { MIGRATIONS } from './migrations.js';
import { prepareDatabaseFile, UnwritableLocationError } from './private-files.js';
import { type SessionColumns, type SessionRow, selectList, toSession } from './rows.js';
import { COMPATIBILITY_TABLE, oldestCodeFor, planFor } from './schema-policy.js';
import {
  ActiveKeyLimitReached,
  type AttemptCount,
  type AttemptRule,
  type ChangeSignal,
  CredentialChanged,
  type KeyCredential,
  type KeyEvent,
  type KeyPosition,
  type KeyRoll,
  type KeySource,
  type KeySummary,
  type ListScope,
  MAX_DOUBLINGS,
  type NewKeyOptions,
  notSecret,
  type PageQuery,
  type PasswordChange,
  type QuotaLease,
  type QuotaRequest,
  type SessionRecord,
  type Store,
  type User,
  type UserCredential,
} from './store.js';

/**
 * Where each field of the spec's `Item` lives. Typed against the generated
 * `Item`, so a field renamed or added in the spec breaks the build here, where
 * the SQL is, rather than at run time.
 */
const ITEM_COLUMNS = { id: 'i.id', title: 'i.title', ownerId: 'i.owner_id', createdAt: 'i.created_at' } as const satisfies Record<keyof Item, string>;
const KEY_SUMMARY_COLUMNS = {
  id: 'id',
  userId: 'user_id',
  name: 'name',
  hint: 'hint',
  createdAt: 'created_at',
  lastUsedAt: 'last_used_at',
  expiresAt: 'expires_at',
  revokedAt: 'revoked_at',
  rolledAt: 'rolled_at',
  replacedBy: 'replaced_by',
} as const satisfies Record<keyof KeySummary, string>;
const KEY_CREDENTIAL_COLUMNS = {
  id: 'id',
  userId: 'user_id',
  revokedAt: 'revoked_at',
  lastUsedAt: 'last_used_at',
  expiresAt: 'expires_at',
  rolledAt: 'rolled_at',
} as const satisfies Record<keyof KeyCredential, string>;
const USER_COLUMNS = { id: 'id', name: 'name', createdAt: 'created_at' } as const satisfies Record<keyof User, string>;
const KEY_EVENT_COLUMNS = {
  id: 'e.id',
  type: 'e.type',
  at: 'e.at',
  source: 'e.source',
  keyId: 'e.key_id',
  keyName: 'k.name',
  keyHint: 'k.hint',
} as const satisfies Record<keyof KeyEvent, string>;
/** A session row joined with its user, flat; `toSession` nests the user. */
const SESSION_COLUMNS = {
  id: 's.id',
  createdAt: 's.created_at',
  lastSeenAt: 's.last_seen_at',
  expiresAt: 's.expires_at',
  userId: 'u.id',
  userName: 'u.name',
  userCreatedAt: 'u.created_at',
} as const satisfies SessionColumns;

/** An opened SQLite database: the store's queries, and the signal that another connection has written. */
export interface SqliteEngine {
  store: Store;
  changes: ChangeSignal;
}

/**
 * How long one look at SQLite's change counter stands: a key revoked (or any key, item, share or session
 * changed) by another process, such as the keys CLI, fails here within this bound. The look costs a read
 * transaction (file locks), so it is not taken on every request; this process's own writes are seen at once.
 */
export const SQLITE_CHANGE_CHECK_MS = 100;

export interface SqliteOptions {
  /** How long one look at the change counter stands (default `SQLITE_CHANGE_CHECK_MS`); 0 looks on every call. */
  changeCheckMs?: number;
  /** The clock for that bound, in milliseconds; a test passes a fake one. */
  now?: () => number;
}

/** Opens (creating if needed) an SQLite database and applies pending migrations. */
export function openSqliteStore(location: string, options: SqliteOptions = {}): SqliteEngine {
  if (location !== ':memory:') prepareDatabaseFile(location);
  const db = new Database(location);
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db.close();
    // The first read of the file: a file that is something else (or damaged) is the operator's DATABASE_PATH to correct, not a crash.
    if ((error as { code?: unknown }).code === 'SQLITE_NOTADB')
      throw new UnwritableLocationError(
        `${location} is not an SQLite database (or it is damaged): set DATABASE_PATH to the service's database file, or to a new file to start empty`,
        { cause: error },
      );
    throw error;
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // The key CLI writes while the server runs; wait for the lock instead of failing.
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return {
    store: new SqliteStore(db),
    changes: dataVersionSignal(db, options.changeCheckMs ?? SQLITE_CHANGE_CHECK_MS, options.now ?? (() => performance.now())),
  };
}

/**
 * SQLite's `PRAGMA data_version` changes whenever another connection (the keys
 * CLI, a second server process) commits; this connection's own writes do not
 * change it, which is why the cache also forgets on its own writes. It is read
 * at most once per `checkMs`; in between, the last answer stands.
 */
function dataVersionSignal(db: Database.Database, checkMs: number, now: () => number): ChangeSignal {
  const read = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seen: number | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  return {
    changed() {
      const at = now();
      if (at - checkedAt < checkMs) return false;
      checkedAt = at;
      const version = read.get() as number;
      if (version === seen) return false;
      seen = version;
      return true;
    },
  };
}

/**
 * Applies pending migrations, each in its own write transaction that also records the oldest code that runs on
 * its result, so a migration that fails later leaves a database whose record is true of its schema (a rollback
 * to older code is then refused if a contraction was applied). Each transaction re-reads the version under the
 * write lock, so two processes starting on one file apply each migration once. A database newer than this code
 * is served as is when it says this code still runs on it (schema-policy.ts).
 */
function migrate(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${COMPATIBILITY_TABLE} (oldest_code INTEGER NOT NULL) STRICT`);
  const readVersion = () => db.pragma('user_version', { simple: true }) as number;
  const readOldest = db.prepare<[], number>(`SELECT oldest_code FROM ${COMPATIBILITY_TABLE}`).pluck();
  const record = (oldest: number) => {
    db.exec(`DELETE FROM ${COMPATIBILITY_TABLE}`);
    db.prepare(`INSERT INTO ${COMPATIBILITY_TABLE} (oldest_code) VALUES (?)`).run(oldest);
  };
  if (planFor(readVersion(), readOldest.get()) === 'run') return;
  for (let version = readVersion(); version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      // Another process may have applied it since the version was read outside this transaction.
      if (readVersion() !== version) return;
      db.exec(MIGRATIONS[version] ?? '');
      db.pragma(`user_version = ${version + 1}`);
      record(oldestCodeFor(version + 1));
    }).immediate();
  }
  // A database already at this version may predate the record (migration 8 added it).
  const oldest = oldestCodeFor(MIGRATIONS.length);
  if (readVersion() === MIGRATIONS.length && readOldest.get() !== oldest) db.transaction(() => record(oldest)).immediate();
}

/** Rows of key history deleted per statement (`deleteKeyHistoryBefore`). */
const HISTORY_BATCH = 5_000;

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
  readonly #findSession: Database.Statement<[Buffer], SessionRow>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#list = listStatements(db);
    this.#findKey = db.prepare(`SELECT ${selectList(KEY_CREDENTIAL_COLUMNS)} FROM api_keys WHERE digest = ?`);
    this.#touchKey = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    // A session started under a credential version the user has left (a password change since) is not found.
    this.#findSession = db.prepare(
      `SELECT ${selectList(SESSION_COLUMNS)} FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.digest = ? AND (s.credential_version IS NULL OR s.credential_version = u.credential_version)`,
    );
  }

  async findKeyByDigest(digest: Buffer): Promise<KeyCredential | undefined> {
    return this.#findKey.get(digest);
  }

  async touchKey(keyId: string, at: string): Promise<void> {
    this.#db.transaction(() => {
      const key = this.#db
        .prepare<[string], { userId: string; lastUsedAt: string | null }>('SELECT user_id AS userId, last_used_at AS lastUsedAt FROM api_keys WHERE id = ?')
        .get(keyId);
      if (!key) return;
      this.#touchKey.run(at, keyId);
      if (key.lastUsedAt === null) this.#recordEvent(keyId, key.userId, 'first_used', 'api', at);
    })();
  }

  /** Each kind of event happens at most once per key (UNIQUE (key_id, type)); a repeat is ignored. */
  #recordEvent(keyId: string, userId: string, type: KeyEvent['type'], source: KeySource, at: string): void {
    this.#db
      .prepare('INSERT INTO key_events (id, key_id, user_id, type, source, at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key_id, type) DO NOTHING')
      .run(newId('evt'), keyId, userId, type, source, at);
  }

  #insertKey(userId: string, digest: Buffer, hint: string, at: string, options: NewKeyOptions): KeySummary {
    const id = newId('key');
    const name = options.name ?? 'CLI key';
    const expiresAt = options.expiresAt ?? null;
    this.#db
      .prepare('INSERT INTO api_keys (id, user_id, digest, hint, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, userId, digest, hint, name, at, expiresAt);
    this.#recordEvent(id, userId, 'created', options.source ?? 'cli', at);
    return { id, userId, name, hint, createdAt: at, lastUsedAt: null, expiresAt, revokedAt: null, rolledAt: null, replacedBy: null };
  }

  async createKey(userId: string, digest: Buffer, hint: string, at: string, options: NewKeyOptions = {}): Promise<KeySummary> {
    // IMMEDIATE takes the database's write lock before the count: another process creating at the same time
    // waits (busy_timeout) and then counts this key too. Within this process the transaction runs without a pause.
    return this.#db
      .transaction(() => {
        if (options.maxActive !== undefined) {
          const active = this.#countActiveKeys(userId, at);
          if (active >= options.maxActive) throw new ActiveKeyLimitReached(active);
        }
        return this.#insertKey(userId, digest, hint, at, options);
      })
      .immediate();
  }

  async listKeys(userId: string): Promise<KeySummary[]> {
    return this.#db
      .prepare<[string], KeySummary>(`SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys WHERE user_id = ? ORDER BY created_at, id`)
      .all(userId);
  }

  async listKeyPage(userId: string, query: { asOf: string; limit: number; after?: KeyPosition }): Promise<KeySummary[]> {
    // After a position: the keys of its group that sort after it, and every inactive key after an active one.
    const start = query.after
      ? 'AND ((k.active = @active AND (k.createdAt < @createdAt OR (k.createdAt = @createdAt AND k.id < @id))) OR (@active AND NOT k.active))'
      : '';
    const rows = this.#db
      .prepare<Record<string, unknown>, KeySummary & { active: number }>(
        `SELECT * FROM (
           SELECT ${selectList(KEY_SUMMARY_COLUMNS)}, (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > @asOf)) AS active
           FROM api_keys WHERE user_id = @userId AND removed_at IS NULL
         ) k
         WHERE 1 ${start}
         ORDER BY k.active DESC, k.createdAt DESC, k.id DESC LIMIT @limit`,
      )
      .all({
        userId,
        asOf: query.asOf,
        limit: query.limit,
        ...(query.after && { active: query.after.active ? 1 : 0, createdAt: query.after.createdAt, id: query.after.id }),
      });
    return rows.map(({ active: _active, ...key }) => key);
  }

  async findKey(userId: string, keyId: string): Promise<KeySummary | undefined> {
    return this.#db
      .prepare<[string, string], KeySummary>(`SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys WHERE id = ? AND user_id = ? AND removed_at IS NULL`)
      .get(keyId, userId);
  }

  async countActiveKeys(userId: string, at: string): Promise<number> {
    return this.#countActiveKeys(userId, at);
  }

  #countActiveKeys(userId: string, at: string): number {
    const row = this.#db
      .prepare<[string, string], { n: number }>(
        'SELECT count(*) AS n FROM api_keys WHERE user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
      )
      .get(userId, at);
    return row?.n ?? 0;
  }

  async removeKey(userId: string, keyId: string, at: string): Promise<'removed' | 'active' | undefined> {
    return this.#db
      .transaction(() => {
        const key = this.#db
          .prepare<[string, string, string], { active: number }>(
            `SELECT (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)) AS active
             FROM api_keys WHERE id = ? AND user_id = ? AND removed_at IS NULL`,
          )
          .get(at, keyId, userId);
        if (!key) return undefined;
        if (key.active) return 'active' as const;
        this.#db.prepare('UPDATE api_keys SET removed_at = ? WHERE id = ?').run(at, keyId);
        return 'removed' as const;
      })
      .immediate();
  }

  async revokeKey(keyId: string, at: string, options: { userId?: string; source?: KeySource } = {}): Promise<boolean> {
    return this.#db.transaction(() => {
      const key = this.#db.prepare<[string], { userId: string }>('SELECT user_id AS userId FROM api_keys WHERE id = ? AND revoked_at IS NULL').get(keyId);
      if (!key || (options.userId !== undefined && key.userId !== options.userId)) return false;
      this.#db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(at, keyId);
      this.#recordEvent(keyId, key.userId, 'revoked', options.source ?? 'cli', at);
      return true;
    })();
  }

  async rollKey(roll: KeyRoll): Promise<{ previous: KeySummary; next: KeySummary } | undefined> {
    return this.#db.transaction(() => {
      const previous = this.#db
        .prepare<[string, string, string], KeySummary>(
          `SELECT ${selectList(KEY_SUMMARY_COLUMNS)} FROM api_keys
           WHERE id = ? AND user_id = ? AND revoked_at IS NULL AND rolled_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
        )
        .get(roll.keyId, roll.userId, roll.at);
      if (!previous) return undefined;
      const next = this.#insertKey(roll.userId, roll.next.digest, roll.next.hint, roll.at, {
        name: previous.name,
        expiresAt: roll.next.expiresAt,
        source: roll.source,
      });
      // The old key never outlives its own expiry, whatever the overlap.
      const previousExpiresAt = previous.expiresAt !== null && previous.expiresAt < roll.previousExpiresAt ? previous.expiresAt : roll.previousExpiresAt;
      this.#db.prepare('UPDATE api_keys SET rolled_at = ?, replaced_by = ?, expires_at = ? WHERE id = ?').run(roll.at, next.id, previousExpiresAt, previous.id);
      this.#recordEvent(previous.id, roll.userId, 'rolled', roll.source, roll.at);
      return { previous: { ...previous, rolledAt: roll.at, replacedBy: next.id, expiresAt: previousExpiresAt }, next };
    })();
  }

  async recordExpiries(userId: string, at: string): Promise<void> {
    const expired = this.#db
      .prepare<[string, string], { id: string; expiresAt: string }>(
        `SELECT k.id, k.expires_at AS expiresAt FROM api_keys k
         WHERE k.user_id = ? AND k.revoked_at IS NULL AND k.expires_at IS NOT NULL AND k.expires_at <= ?
           AND NOT EXISTS (SELECT 1 FROM key_events e WHERE e.key_id = k.id AND e.type = 'expired')`,
      )
      .all(userId, at);
    if (expired.length === 0) return;
    this.#db.transaction(() => {
      for (const key of expired) this.#recordEvent(key.id, userId, 'expired', 'system', key.expiresAt);
    })();
  }

  async listKeyEvents(userId: string, query: { limit: number; before?: { at: string; id: string } }): Promise<KeyEvent[]> {
    const start = query.before ? 'AND (e.at < @at OR (e.at = @at AND e.id < @id))' : '';
    return this.#db
      .prepare<Record<string, unknown>, KeyEvent>(
        `SELECT ${selectList(KEY_EVENT_COLUMNS)} FROM key_events e JOIN api_keys k ON k.id = e.key_id
         WHERE e.user_id = @userId ${start} ORDER BY e.at DESC, e.id DESC LIMIT @limit`,
      )
      .all({ userId, limit: query.limit, ...(query.before && { at: query.before.at, id: query.before.id }) });
  }

  async createUser(name: string, at: string, passwordHash?: string): Promise<User> {
    const id = newId('usr');
    this.#db.prepare('INSERT INTO users (id, name, created_at, password_hash) VALUES (?, ?, ?, ?)').run(id, name, at, passwordHash ?? null);
    return { id, name, createdAt: at };
  }

  async findUserByName(name: string): Promise<User | undefined> {
    return this.#db.prepare<[string], User>(`SELECT ${selectList(USER_COLUMNS)} FROM users WHERE name = ?`).get(name);
  }

  async findUserCredential(name: string): Promise<UserCredential | undefined> {
    const row = this.#db
      .prepare<[string], User & { passwordHash: string | null; credentialVersion: number }>(
        `SELECT ${selectList(USER_COLUMNS)}, password_hash AS "passwordHash", credential_version AS "credentialVersion" FROM users WHERE name = ?`,
      )
      .get(name);
    if (!row) return undefined;
    const { passwordHash, credentialVersion, ...user } = row;
    return { user, passwordHash, credentialVersion };
  }

  async setPasswordHash(userId: string, passwordHash: string, credentialVersion?: number): Promise<boolean> {
    return (
      this.#db
        .prepare('UPDATE users SET password_hash = ? WHERE id = ? AND (? IS NULL OR credential_version = ?)')
        .run(passwordHash, userId, credentialVersion ?? null, credentialVersion ?? null).changes === 1
    );
  }

  async changePassword(change: {
    userId: string;
    passwordHash: string;
    keepSessionId: string;
    revokeKeys?: { at: string; source: KeySource };
  }): Promise<PasswordChange> {
    const { userId, passwordHash, keepSessionId, revokeKeys } = change;
    // IMMEDIATE: the write lock first, so no session is started between the bump and the deletes (by another process either).
    return this.#db
      .transaction((): PasswordChange => {
        const bumped = this.#db
          .prepare<[string, string], { credentialVersion: number }>(
            'UPDATE users SET password_hash = ?, credential_version = credential_version + 1 WHERE id = ? RETURNING credential_version AS credentialVersion',
          )
          .get(passwordHash, userId);
        if (!bumped) throw new Error(`no user ${userId}`);
        const sessionsEnded = this.#db.prepare('DELETE FROM sessions WHERE user_id = ? AND id <> ?').run(userId, keepSessionId).changes;
        this.#db.prepare('UPDATE sessions SET credential_version = ? WHERE id = ? AND user_id = ?').run(bumped.credentialVersion, keepSessionId, userId);
        let keysRevoked = 0;
        if (revokeKeys) {
          const revoked = this.#db
            .prepare<[string, string, string], { id: string }>(
              'UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) RETURNING id',
            )
            .all(revokeKeys.at, userId, revokeKeys.at);
          for (const { id } of revoked) this.#recordEvent(id, userId, 'revoked', revokeKeys.source, revokeKeys.at);
          keysRevoked = revoked.length;
        }
        return { credentialVersion: bumped.credentialVersion, sessionsEnded, keysRevoked };
      })
      .immediate();
  }

  async createSession(userId: string, digest: Buffer, at: string, expiresAt: string, credentialVersion?: number): Promise<SessionRecord> {
    const id = newId('ses');
    // IMMEDIATE: the version is read and the session written under the write lock, so a password change is wholly before or after.
    return this.#db
      .transaction((): SessionRecord => {
        const row = this.#db
          .prepare<[string], User & { credentialVersion: number }>(
            `SELECT ${selectList(USER_COLUMNS)}, credential_version AS "credentialVersion" FROM users WHERE id = ?`,
          )
          .get(userId);
        if (!row) throw new Error(`no user ${userId}`);
        const { credentialVersion: current, ...user } = row;
        if (credentialVersion !== undefined && credentialVersion !== current) throw new CredentialChanged(userId);
        this.#db
          .prepare('INSERT INTO sessions (id, user_id, digest, created_at, last_seen_at, expires_at, credential_version) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(id, userId, digest, at, at, expiresAt, current);
        return { id, user, createdAt: at, lastSeenAt: at, expiresAt };
      })
      .immediate();
  }

  async findSessionByDigest(digest: Buffer): Promise<SessionRecord | undefined> {
    const row = this.#findSession.get(digest);
    return row && toSession(row);
  }

  async touchSession(sessionId: string, at: string): Promise<void> {
    this.#db.prepare('UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?').run(at, sessionId, at);
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    return this.#db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId).changes === 1;
  }

  async deleteKeyHistoryBefore(before: string): Promise<{ events: number; keys: number }> {
    // In batches, each its own short write: a first pass over years of history never holds the lock for long.
    const deleteEvents = this.#db.prepare(`DELETE FROM key_events WHERE rowid IN (SELECT rowid FROM key_events WHERE at < ? LIMIT ${HISTORY_BATCH})`);
    // A newer key may name a removed one it replaced; it forgets the name, not itself.
    const forgetNames = this.#db.prepare(
      `UPDATE api_keys SET replaced_by = NULL WHERE replaced_by IN (SELECT id FROM api_keys WHERE removed_at < ? ORDER BY removed_at, id LIMIT ${HISTORY_BATCH})`,
    );
    const deleteKeys = this.#db.prepare(
      `DELETE FROM api_keys WHERE id IN (SELECT id FROM api_keys WHERE removed_at < ? ORDER BY removed_at, id LIMIT ${HISTORY_BATCH})`,
    );
    const deleteKeyBatch = this.#db.transaction(() => {
      forgetNames.run(before);
      return deleteKeys.run(before).changes;
    });
    let events = 0;
    let keys = 0;
    for (let batch = HISTORY_BATCH; batch === HISTORY_BATCH; events += batch) batch = deleteEvents.run(before).changes;
    for (let batch = HISTORY_BATCH; batch === HISTORY_BATCH; keys += batch) batch = deleteKeyBatch();
    return { events, keys };
  }

  async deleteEndedSessions(at: string, idleBefore: string): Promise<number> {
    return this.#db.prepare('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at < ?').run(at, idleBefore).changes;
  }

  async listSessions(userId: string, query: { at: string; idleBefore: string; limit: number }): Promise<SessionRecord[]> {
    const rows = this.#db
      .prepare<[string, string, string, number], SessionRow>(
        `SELECT ${selectList(SESSION_COLUMNS)} FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.user_id = ? AND s.expires_at > ? AND s.last_seen_at > ? ORDER BY s.created_at DESC, s.id DESC LIMIT ?`,
      )
      .all(userId, query.at, query.idleBefore, query.limit);
    return rows.map(toSession);
  }

  async deleteUserSession(userId: string, sessionId: string): Promise<boolean> {
    return this.#db.prepare('DELETE FROM sessions WHERE id = ? AND user_id = ?').run(sessionId, userId).changes === 1;
  }

  async deleteOtherSessions(userId: string, keepSessionId: string): Promise<number> {
    return this.#db.prepare('DELETE FROM sessions WHERE user_id = ? AND id <> ?').run(userId, keepSessionId).changes;
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
    return this.#db
      .transaction(() => {
        const row = this.#db
          .prepare<[string], { window: number; used: number }>('SELECT window_index AS window, used FROM rate_limits WHERE key_id = ?')
          .get(keyId);
        const window = row && row.window >= currentWindow ? row.window : currentWindow;
        const counted = row && row.window >= currentWindow ? row.used : 0;
        const granted = Math.min(request.want, Math.max(request.limit - counted, 0));
        this.#db
          .prepare(
            'INSERT INTO rate_limits (key_id, window_index, used) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET window_index = excluded.window_index, used = excluded.used',
          )
          .run(keyId, window, counted + granted);
        return { granted, used: counted + granted, resetMs: Math.max((window + 1) * request.windowMs - now, 0) };
      })
      .immediate();
  }

  async takeAttempt(key: string, atMs: number, rule: AttemptRule): Promise<AttemptCount | undefined> {
    // One statement: a refused attempt changes nothing and returns no row; a forgotten count starts again at `atMs`.
    return this.#db
      .prepare<Record<string, string | number>, AttemptCount>(
        `INSERT INTO attempt_counts (key, start_ms, attempts, last_ms) VALUES (@key, @at, 1, @at)
         ON CONFLICT (key) DO UPDATE SET
           start_ms = CASE WHEN @at - last_ms >= @forget THEN @at ELSE start_ms END,
           attempts = CASE WHEN @at - last_ms >= @forget THEN 1 ELSE attempts + 1 END,
           last_ms = @at
         WHERE @at - last_ms >= @forget OR attempts < @free
           OR @at - last_ms >= min(@maxBackoff, @backoff << min(max(attempts - @free, 0), @doublings))
         RETURNING start_ms AS "startMs", attempts, last_ms AS "lastMs"`,
      )
      .get({
        key,
        at: atMs,
        free: rule.free,
        backoff: rule.backoffMs,
        maxBackoff: rule.maxBackoffMs,
        forget: rule.forgetMs,
        doublings: MAX_DOUBLINGS,
      });
  }

  async releaseAttempt(key: string): Promise<void> {
    this.#db.prepare('UPDATE attempt_counts SET attempts = attempts - 1 WHERE key = ? AND attempts > 0').run(key);
  }

  async findAttempts(key: string): Promise<AttemptCount | undefined> {
    return this.#db.prepare<[string], AttemptCount>('SELECT start_ms AS "startMs", attempts, last_ms AS "lastMs" FROM attempt_counts WHERE key = ?').get(key);
  }

  async clearAttempts(key: string): Promise<void> {
    this.#db.prepare('DELETE FROM attempt_counts WHERE key = ?').run(key);
  }

  async deleteAttemptsBefore(beforeMs: number, prefix: string): Promise<number> {
    return this.#db
      .prepare('DELETE FROM attempt_counts WHERE last_ms < @before AND substr(key, 1, length(@prefix)) = @prefix')
      .run({ before: beforeMs, prefix }).changes;
  }

  async readMeta(key: string): Promise<Buffer | undefined> {
    return this.#db.prepare<[string], Buffer>('SELECT value FROM meta WHERE key = ?').pluck().get(notSecret(key));
  }

  async writeMeta(key: string, value: Buffer): Promise<void> {
    this.#db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(notSecret(key), value);
  }

  async secret(name: string): Promise<Buffer> {
    // INSERT OR IGNORE then SELECT: two processes starting at once agree on one secret.
    this.#db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(`secret:${name}`, randomBytes(32));
    return (this.#db.prepare('SELECT value FROM meta WHERE key = ?').get(`secret:${name}`) as { value: Buffer }).value;
  }

  async ping(): Promise<void> {
    this.#db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

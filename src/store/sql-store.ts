import { randomBytes } from 'node:crypto';
import type { Item, Sort } from '../contract/types.js';
import { newId } from './ids.js';
import { type SessionColumns, type SessionRow, selectList, toSession } from './rows.js';
import { all, type Dialect, get, run, type SqlEngine, transaction, type Work } from './sql-work.js';
import {
  ActiveKeyLimitReached,
  type AttemptCount,
  type AttemptRule,
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
  type StoreStats,
  type User,
  type UserCredential,
} from './store.js';

/** Rows of key history deleted per statement (`deleteKeyHistoryBefore`): a first pass over years of history never holds a lock for long. */
export const HISTORY_BATCH = 5_000;

/**
 * Where each field lives, typed against the generated and port types: a field renamed or added in the spec
 * breaks the build here, where the SQL is, rather than at run time. Times read back as RFC 3339 text.
 */
function columns(d: Dialect) {
  const t = (column: string) => d.readTime(column);
  return {
    item: { id: 'i.id', title: 'i.title', ownerId: 'i.owner_id', createdAt: t('i.created_at') } satisfies Record<keyof Item, string>,
    keySummary: {
      id: 'id',
      userId: 'user_id',
      name: 'name',
      hint: 'hint',
      createdAt: t('created_at'),
      lastUsedAt: t('last_used_at'),
      expiresAt: t('expires_at'),
      revokedAt: t('revoked_at'),
      rolledAt: t('rolled_at'),
      replacedBy: 'replaced_by',
    } satisfies Record<keyof KeySummary, string>,
    keyCredential: {
      id: 'id',
      userId: 'user_id',
      revokedAt: t('revoked_at'),
      lastUsedAt: t('last_used_at'),
      expiresAt: t('expires_at'),
      rolledAt: t('rolled_at'),
    } satisfies Record<keyof KeyCredential, string>,
    user: { id: 'id', name: 'name', createdAt: t('created_at') } satisfies Record<keyof User, string>,
    keyEvent: {
      id: 'e.id',
      type: 'e.type',
      at: t('e.at'),
      source: 'e.source',
      keyId: 'e.key_id',
      keyName: 'k.name',
      keyHint: 'k.hint',
    } satisfies Record<keyof KeyEvent, string>,
    /** A session row joined with its user, flat; `toSession` nests the user. */
    session: {
      id: 's.id',
      createdAt: t('s.created_at'),
      lastSeenAt: t('s.last_seen_at'),
      expiresAt: t('s.expires_at'),
      userId: 'u.id',
      userName: 'u.name',
      userCreatedAt: t('u.created_at'),
    } satisfies SessionColumns,
  };
}

/**
 * Every statement the store sends, made once per dialect. Parameters are PostgreSQL's `$1`, `$2`, ... (a number
 * may stand more than once); the SQLite engine binds them by number. The text is the same on every call, so
 * engines prepare each statement once.
 */
function statements(d: Dialect) {
  const c = columns(d);
  const keySummary = selectList(c.keySummary);
  const user = selectList(c.user);
  const t = (parameter: string) => d.time(parameter);
  /** Neither revoked nor expired at the time in parameter `at`. */
  const active = (at: string) => `(revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${t(at)}))`;
  const listItems = (scope: ListScope, sort: Sort, after: boolean) => {
    const direction = sort === 'asc' ? 'ASC' : 'DESC';
    const start = after ? `AND (i.created_at, i.id) ${sort === 'asc' ? '>' : '<'} (${t('$3')}, $4)` : '';
    return scope === 'own'
      ? `SELECT ${selectList(c.item)} FROM items i WHERE i.owner_id = $1 ${start}
         ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT $2`
      : `SELECT ${selectList(c.item)} FROM shares s JOIN items i ON i.id = s.item_id
         WHERE s.user_id = $1 AND i.owner_id <> s.user_id ${start}
         ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT $2`;
  };
  const listScope = (scope: ListScope) => ({
    asc: { first: listItems(scope, 'asc', false), after: listItems(scope, 'asc', true) },
    desc: { first: listItems(scope, 'desc', false), after: listItems(scope, 'desc', true) },
  });
  // After a position: the keys of its group that sort after it, and every inactive key after an active one.
  const keyPage = (after: boolean) =>
    `SELECT * FROM (
       SELECT ${keySummary}, created_at AS sort_at, CASE WHEN ${active('$2')} THEN 1 ELSE 0 END AS active
       FROM api_keys WHERE user_id = $1 AND removed_at IS NULL
     ) k
     WHERE 1 = 1 ${after ? `AND ((k.active = $4 AND (k.sort_at < ${t('$5')} OR (k.sort_at = ${t('$5')} AND k.id < $6))) OR ($4 = 1 AND k.active = 0))` : ''}
     ORDER BY k.active DESC, k.sort_at DESC, k.id DESC LIMIT $3`;
  const keyEvents = (before: boolean) =>
    `SELECT ${selectList(c.keyEvent)} FROM key_events e JOIN api_keys k ON k.id = e.key_id
     WHERE e.user_id = $1 ${before ? `AND (e.at < ${t('$3')} OR (e.at = ${t('$3')} AND e.id < $4))` : ''} ORDER BY e.at DESC, e.id DESC LIMIT $2`;
  const removedKeys = `SELECT id FROM api_keys WHERE removed_at < ${t('$1')} ORDER BY removed_at, id LIMIT ${HISTORY_BATCH}`;
  const attemptCount = 'start_ms AS "startMs", attempts, last_ms AS "lastMs"';
  return {
    list: { own: listScope('own'), shared: listScope('shared') },
    findKey: `SELECT ${selectList(c.keyCredential)} FROM api_keys WHERE digest = $1`,
    // The key's `first_used` event the first time (before the time is set, which ends "the first time"), then the time.
    firstUse: `INSERT INTO key_events (id, key_id, user_id, type, source, at)
               SELECT $3, id, user_id, 'first_used', 'api', ${t('$1')} FROM api_keys WHERE id = $2 AND last_used_at IS NULL
               ON CONFLICT (key_id, type) DO NOTHING`,
    touchKey: 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2',
    /** Each kind of event happens at most once per key (UNIQUE (key_id, type)); a repeat is ignored. */
    insertEvent: 'INSERT INTO key_events (id, key_id, user_id, type, source, at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key_id, type) DO NOTHING',
    insertKey: 'INSERT INTO api_keys (id, user_id, digest, hint, name, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    lockUser: `SELECT 1 AS locked FROM users WHERE id = $1${d.forNoKeyUpdate}`,
    countActiveKeys: `SELECT CAST(count(*) AS integer) AS n FROM api_keys WHERE user_id = $1 AND ${active('$2')}`,
    listKeys: `SELECT ${keySummary} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`,
    keyPage: { first: keyPage(false), after: keyPage(true) },
    findKeyOfUser: `SELECT ${keySummary} FROM api_keys WHERE id = $1 AND user_id = $2 AND removed_at IS NULL`,
    keyToRemove: `SELECT CASE WHEN ${active('$3')} THEN 1 ELSE 0 END AS active FROM api_keys WHERE id = $1 AND user_id = $2 AND removed_at IS NULL${d.forUpdate}`,
    removeKey: 'UPDATE api_keys SET removed_at = $2 WHERE id = $1',
    revokeKey:
      'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL AND (CAST($3 AS text) IS NULL OR user_id = $3) RETURNING user_id AS "userId"',
    keyToRoll: `SELECT ${keySummary} FROM api_keys WHERE id = $1 AND user_id = $2 AND rolled_at IS NULL AND ${active('$3')}${d.forUpdate}`,
    rollKey: 'UPDATE api_keys SET rolled_at = $1, replaced_by = $2, expires_at = $3 WHERE id = $4',
    unrecordedExpiries: `SELECT k.id, ${d.readTime('k.expires_at')} AS "expiresAt" FROM api_keys k
       WHERE k.user_id = $1 AND k.revoked_at IS NULL AND k.expires_at IS NOT NULL AND k.expires_at <= ${t('$2')}
         AND NOT EXISTS (SELECT 1 FROM key_events e WHERE e.key_id = k.id AND e.type = 'expired')`,
    keyEvents: { first: keyEvents(false), before: keyEvents(true) },
    deleteEvents: `DELETE FROM key_events WHERE id IN (SELECT id FROM key_events WHERE at < ${t('$1')} LIMIT ${HISTORY_BATCH})`,
    // A newer key may name a removed one it replaced; it forgets the name, not itself.
    forgetReplaced: `UPDATE api_keys SET replaced_by = NULL WHERE replaced_by IN (${removedKeys})`,
    deleteRemovedKeys: `DELETE FROM api_keys WHERE id IN (${removedKeys})`,
    createUser: 'INSERT INTO users (id, name, created_at, password_hash) VALUES ($1, $2, $3, $4)',
    findUserByName: `SELECT ${user} FROM users WHERE name = $1`,
    findUserCredential: `SELECT ${user}, password_hash AS "passwordHash", credential_version AS "credentialVersion" FROM users WHERE name = $1`,
    setPasswordHash: 'UPDATE users SET password_hash = $1 WHERE id = $2 AND (CAST($3 AS integer) IS NULL OR credential_version = $3)',
    bumpCredential:
      'UPDATE users SET password_hash = $2, credential_version = credential_version + 1 WHERE id = $1 RETURNING credential_version AS "credentialVersion"',
    revokeActiveKeys: `UPDATE api_keys SET revoked_at = $2 WHERE user_id = $1 AND ${active('$2')} RETURNING id`,
    countUsers: 'SELECT CAST(count(*) AS integer) AS n FROM users',
    // A password change holding the row makes this wait, then read the version it committed (createSession).
    userForSession: `SELECT ${user}, credential_version AS "credentialVersion" FROM users WHERE id = $1${d.forShare}`,
    insertSession: 'INSERT INTO sessions (id, user_id, digest, created_at, last_seen_at, expires_at, credential_version) VALUES ($1, $2, $3, $4, $4, $5, $6)',
    // A session started under a credential version the user has left (a password change since) is not found.
    findSession: `SELECT ${selectList(c.session)} FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.digest = $1 AND (s.credential_version IS NULL OR s.credential_version = u.credential_version)`,
    touchSession: `UPDATE sessions SET last_seen_at = $1 WHERE id = $2 AND last_seen_at < ${t('$1')}`,
    deleteSession: 'DELETE FROM sessions WHERE id = $1',
    deleteEndedSessions: `DELETE FROM sessions WHERE expires_at <= ${t('$1')} OR last_seen_at < ${t('$2')}`,
    listSessions: `SELECT ${selectList(c.session)} FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.user_id = $1 AND s.expires_at > ${t('$2')} AND s.last_seen_at > ${t('$3')} ORDER BY s.created_at DESC, s.id DESC LIMIT $4`,
    deleteUserSession: 'DELETE FROM sessions WHERE id = $1 AND user_id = $2',
    deleteOtherSessions: 'DELETE FROM sessions WHERE user_id = $1 AND id <> $2',
    keepSession: 'UPDATE sessions SET credential_version = $3 WHERE id = $2 AND user_id = $1',
    createItem: 'INSERT INTO items (id, owner_id, title, created_at) VALUES ($1, $2, $3, $4)',
    itemOwner: 'SELECT owner_id AS "ownerId" FROM items WHERE id = $1',
    shareItem: 'INSERT INTO shares (user_id, item_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    // One statement under the row's lock: writers taking attempts at once each see the others' count; a refused
    // attempt changes nothing and returns no row; a forgotten count starts again at the attempt ($2).
    takeAttempt: `INSERT INTO attempt_counts AS a (key, start_ms, attempts, last_ms) VALUES ($1, $2, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         start_ms = CASE WHEN $2 - a.last_ms >= $6 THEN $2 ELSE a.start_ms END,
         attempts = CASE WHEN $2 - a.last_ms >= $6 THEN 1 ELSE a.attempts + 1 END,
         last_ms = $2
       WHERE $2 - a.last_ms >= $6 OR a.attempts < $3
         OR $2 - a.last_ms >= ${d.least('CAST($5 AS bigint)', `CAST($4 AS bigint) << ${d.least(d.greatest('a.attempts - $3', '0'), 'CAST($7 AS integer)')}`)}
       RETURNING ${attemptCount}`,
    // The window is the one the database's clock is in; a row of an earlier window starts again.
    leaseBudget: `INSERT INTO shared_budgets AS b (key, ends_ms, requested) VALUES ($1, (${d.nowMs} / CAST($2 AS bigint) + 1) * CAST($2 AS bigint), CAST($3 AS bigint))
       ON CONFLICT (key) DO UPDATE SET
         requested = CASE WHEN b.ends_ms < excluded.ends_ms THEN excluded.requested ELSE b.requested + excluded.requested END,
         ends_ms = ${d.greatest('b.ends_ms', 'excluded.ends_ms')}
       RETURNING requested, ends_ms - ${d.nowMs} AS "resetMs"`,
    deleteBudgetsBefore: 'DELETE FROM shared_budgets WHERE ends_ms < $1',
    releaseAttempt: 'UPDATE attempt_counts SET attempts = attempts - 1 WHERE key = $1 AND attempts > 0',
    findAttempts: `SELECT ${attemptCount} FROM attempt_counts WHERE key = $1`,
    clearAttempts: 'DELETE FROM attempt_counts WHERE key = $1',
    deleteAttemptsBefore: 'DELETE FROM attempt_counts WHERE last_ms < $1 AND substr(key, 1, length(CAST($2 AS text))) = $2',
    readMeta: 'SELECT value FROM meta WHERE key = $1',
    writeMeta: 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    // Insert-if-absent, then read: processes starting at once agree on one secret.
    addSecret: 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
    ping: 'SELECT 1 AS one',
  };
}

/** An attempt count as the port has it: PostgreSQL's `bigint` columns come back as text. */
function toAttemptCount(row: { startMs: number | string; attempts: number; lastMs: number | string } | undefined): AttemptCount | undefined {
  return row && { startMs: Number(row.startMs), attempts: row.attempts, lastMs: Number(row.lastMs) };
}

/**
 * The store's queries, written once for both engines: each method is `Work` that the engine runs (sql-work.ts).
 * No caching here (see `cached-store.ts`), and no change notices either: SQLite's data version and PostgreSQL's
 * triggers tell the other processes.
 */
export class SqlStore implements Store {
  readonly #engine: SqlEngine;
  readonly #sql: ReturnType<typeof statements>;

  constructor(engine: SqlEngine) {
    this.#engine = engine;
    this.#sql = statements(engine.dialect);
  }

  #perform<T>(work: Work<T>): Promise<T> {
    return this.#engine.perform(work);
  }

  findKeyByDigest(digest: Buffer): Promise<KeyCredential | undefined> {
    return this.#perform(get<KeyCredential>(this.#sql.findKey, [digest]));
  }

  touchKey(keyId: string, at: string): Promise<void> {
    const sql = this.#sql;
    return this.#perform(
      transaction(function* () {
        yield* run(sql.firstUse, [at, keyId, newId('evt')]);
        yield* run(sql.touchKey, [at, keyId]);
      }),
    );
  }

  *#recordEvent(keyId: string, userId: string, type: KeyEvent['type'], source: KeySource, at: string): Work<void> {
    yield* run(this.#sql.insertEvent, [newId('evt'), keyId, userId, type, source, at]);
  }

  *#recordEvents(events: readonly { keyId: string; at: string }[], userId: string, type: KeyEvent['type'], source: KeySource): Work<void> {
    for (const event of events) yield* this.#recordEvent(event.keyId, userId, type, source, event.at);
  }

  *#insertKey(userId: string, digest: Buffer, hint: string, at: string, options: NewKeyOptions): Work<KeySummary> {
    const id = newId('key');
    const name = options.name ?? 'CLI key';
    const expiresAt = options.expiresAt ?? null;
    yield* run(this.#sql.insertKey, [id, userId, digest, hint, name, at, expiresAt]);
    yield* this.#recordEvent(id, userId, 'created', options.source ?? 'cli', at);
    return { id, userId, name, hint, createdAt: at, lastUsedAt: null, expiresAt, revokedAt: null, rolledAt: null, replacedBy: null };
  }

  *#countActiveKeys(userId: string, at: string): Work<number> {
    return (yield* get<{ n: number }>(this.#sql.countActiveKeys, [userId, at]))?.n ?? 0;
  }

  createKey(userId: string, digest: Buffer, hint: string, at: string, options: NewKeyOptions = {}): Promise<KeySummary> {
    return this.#perform(transaction(() => this.#createKey(userId, digest, hint, at, options)));
  }

  *#createKey(userId: string, digest: Buffer, hint: string, at: string, options: NewKeyOptions): Work<KeySummary> {
    if (options.maxActive !== undefined) {
      // Creates for one user queue on the user's row (on SQLite, on the write lock), so each counts the keys the
      // one before it made, on every instance. NO KEY UPDATE leaves the row's key free: a session insert does not wait.
      yield* get(this.#sql.lockUser, [userId]);
      const active = yield* this.#countActiveKeys(userId, at);
      if (active >= options.maxActive) throw new ActiveKeyLimitReached(active);
    }
    return yield* this.#insertKey(userId, digest, hint, at, options);
  }

  listKeys(userId: string): Promise<KeySummary[]> {
    return this.#perform(all<KeySummary>(this.#sql.listKeys, [userId]));
  }

  async listKeyPage(userId: string, query: { asOf: string; limit: number; after?: KeyPosition }): Promise<KeySummary[]> {
    const { after } = query;
    const rows = await this.#perform(
      after
        ? all<KeySummary & { active: number; sort_at: unknown }>(this.#sql.keyPage.after, [
            userId,
            query.asOf,
            query.limit,
            after.active ? 1 : 0,
            after.createdAt,
            after.id,
          ])
        : all<KeySummary & { active: number; sort_at: unknown }>(this.#sql.keyPage.first, [userId, query.asOf, query.limit]),
    );
    return rows.map(({ active: _active, sort_at: _sortAt, ...key }) => key);
  }

  findKey(userId: string, keyId: string): Promise<KeySummary | undefined> {
    return this.#perform(get<KeySummary>(this.#sql.findKeyOfUser, [keyId, userId]));
  }

  countActiveKeys(userId: string, at: string): Promise<number> {
    return this.#perform(this.#countActiveKeys(userId, at));
  }

  removeKey(userId: string, keyId: string, at: string): Promise<'removed' | 'active' | undefined> {
    const sql = this.#sql;
    return this.#perform(
      transaction(function* () {
        const key = yield* get<{ active: number }>(sql.keyToRemove, [keyId, userId, at]);
        if (!key) return undefined;
        if (key.active) return 'active' as const;
        yield* run(sql.removeKey, [keyId, at]);
        return 'removed' as const;
      }),
    );
  }

  revokeKey(keyId: string, at: string, options: { userId?: string; source?: KeySource } = {}): Promise<boolean> {
    return this.#perform(transaction(() => this.#revokeKey(keyId, at, options)));
  }

  *#revokeKey(keyId: string, at: string, options: { userId?: string; source?: KeySource }): Work<boolean> {
    const key = yield* get<{ userId: string }>(this.#sql.revokeKey, [keyId, at, options.userId ?? null]);
    if (!key) return false;
    yield* this.#recordEvent(keyId, key.userId, 'revoked', options.source ?? 'cli', at);
    return true;
  }

  rollKey(roll: KeyRoll): Promise<{ previous: KeySummary; next: KeySummary } | undefined> {
    return this.#perform(transaction(() => this.#rollKey(roll)));
  }

  *#rollKey(roll: KeyRoll): Work<{ previous: KeySummary; next: KeySummary } | undefined> {
    const previous = yield* get<KeySummary>(this.#sql.keyToRoll, [roll.keyId, roll.userId, roll.at]);
    if (!previous) return undefined;
    const next = yield* this.#insertKey(roll.userId, roll.next.digest, roll.next.hint, roll.at, {
      name: previous.name,
      expiresAt: roll.next.expiresAt,
      source: roll.source,
    });
    // The old key never outlives its own expiry, whatever the overlap.
    const previousExpiresAt = previous.expiresAt !== null && previous.expiresAt < roll.previousExpiresAt ? previous.expiresAt : roll.previousExpiresAt;
    yield* run(this.#sql.rollKey, [roll.at, next.id, previousExpiresAt, previous.id]);
    yield* this.#recordEvent(previous.id, roll.userId, 'rolled', roll.source, roll.at);
    return { previous: { ...previous, rolledAt: roll.at, replacedBy: next.id, expiresAt: previousExpiresAt }, next };
  }

  recordExpiries(userId: string, at: string): Promise<void> {
    return this.#perform(this.#recordExpiries(userId, at));
  }

  *#recordExpiries(userId: string, at: string): Work<void> {
    const expired = yield* all<{ id: string; expiresAt: string }>(this.#sql.unrecordedExpiries, [userId, at]);
    if (expired.length === 0) return;
    yield* transaction(() =>
      this.#recordEvents(
        expired.map((key) => ({ keyId: key.id, at: key.expiresAt })),
        userId,
        'expired',
        'system',
      ),
    );
  }

  listKeyEvents(userId: string, query: { limit: number; before?: { at: string; id: string } }): Promise<KeyEvent[]> {
    const { before } = query;
    return this.#perform(
      before
        ? all<KeyEvent>(this.#sql.keyEvents.before, [userId, query.limit, before.at, before.id])
        : all<KeyEvent>(this.#sql.keyEvents.first, [userId, query.limit]),
    );
  }

  deleteKeyHistoryBefore(before: string): Promise<{ events: number; keys: number }> {
    return this.#perform(this.#deleteKeyHistoryBefore(before));
  }

  /** In batches, each its own short statement or transaction: a first pass over years of history stays within the timeouts. */
  *#deleteKeyHistoryBefore(before: string): Work<{ events: number; keys: number }> {
    const sql = this.#sql;
    let events = 0;
    let keys = 0;
    for (let batch = HISTORY_BATCH; batch === HISTORY_BATCH; events += batch) batch = yield* run(sql.deleteEvents, [before]);
    for (let batch = HISTORY_BATCH; batch === HISTORY_BATCH; keys += batch)
      batch = yield* transaction(function* () {
        yield* run(sql.forgetReplaced, [before]);
        return yield* run(sql.deleteRemovedKeys, [before]);
      });
    return { events, keys };
  }

  async createUser(name: string, at: string, passwordHash?: string): Promise<User> {
    const id = newId('usr');
    await this.#perform(run(this.#sql.createUser, [id, name, at, passwordHash ?? null]));
    return { id, name, createdAt: at };
  }

  findUserByName(name: string): Promise<User | undefined> {
    return this.#perform(get<User>(this.#sql.findUserByName, [name]));
  }

  async findUserCredential(name: string): Promise<UserCredential | undefined> {
    const row = await this.#perform(get<User & { passwordHash: string | null; credentialVersion: number }>(this.#sql.findUserCredential, [name]));
    if (!row) return undefined;
    const { passwordHash, credentialVersion, ...user } = row;
    return { user, passwordHash, credentialVersion };
  }

  async setPasswordHash(userId: string, passwordHash: string, credentialVersion?: number): Promise<boolean> {
    const version = credentialVersion ?? null;
    return (await this.#perform(run(this.#sql.setPasswordHash, [passwordHash, userId, version]))) === 1;
  }

  changePassword(change: {
    userId: string;
    passwordHash: string;
    keepSessionId: string;
    revokeKeys?: { at: string; source: KeySource };
  }): Promise<PasswordChange> {
    return this.#perform(transaction(() => this.#changePassword(change)));
  }

  /**
   * The user's row is written first and stays locked until the end: a session being started under the old version
   * waits for it, then finds the version changed (createSession); one started before is committed first, so the
   * delete (a later statement) ends it. On SQLite the transaction holds the write lock throughout.
   */
  *#changePassword(change: {
    userId: string;
    passwordHash: string;
    keepSessionId: string;
    revokeKeys?: { at: string; source: KeySource };
  }): Work<PasswordChange> {
    const { userId, passwordHash, keepSessionId, revokeKeys } = change;
    const bumped = yield* get<{ credentialVersion: number }>(this.#sql.bumpCredential, [userId, passwordHash]);
    if (!bumped) throw new Error(`no user ${userId}`);
    const sessionsEnded = yield* run(this.#sql.deleteOtherSessions, [userId, keepSessionId]);
    yield* run(this.#sql.keepSession, [userId, keepSessionId, bumped.credentialVersion]);
    let keysRevoked = 0;
    if (revokeKeys) {
      const revoked = yield* all<{ id: string }>(this.#sql.revokeActiveKeys, [userId, revokeKeys.at]);
      for (const { id } of revoked) yield* this.#recordEvent(id, userId, 'revoked', revokeKeys.source, revokeKeys.at);
      keysRevoked = revoked.length;
    }
    return { credentialVersion: bumped.credentialVersion, sessionsEnded, keysRevoked };
  }

  async countUsers(): Promise<number> {
    return (await this.#perform(get<{ n: number }>(this.#sql.countUsers)))?.n ?? 0;
  }

  createSession(userId: string, digest: Buffer, at: string, expiresAt: string, credentialVersion?: number): Promise<SessionRecord> {
    const sql = this.#sql;
    return this.#perform(
      transaction(function* (): Work<SessionRecord> {
        // Read and insert are one step for every writer: the row's share lock (SQLite: the write lock) keeps a
        // password change wholly before (its version is read here, and refused) or after (its delete ends this one).
        const row = yield* get<User & { credentialVersion: number }>(sql.userForSession, [userId]);
        if (!row) throw new Error(`no user ${userId}`);
        const { credentialVersion: current, ...user } = row;
        if (credentialVersion !== undefined && credentialVersion !== current) throw new CredentialChanged(userId);
        const id = newId('ses');
        yield* run(sql.insertSession, [id, userId, digest, at, expiresAt, current]);
        return { id, user, createdAt: at, lastSeenAt: at, expiresAt };
      }),
    );
  }

  async findSessionByDigest(digest: Buffer): Promise<SessionRecord | undefined> {
    const row = await this.#perform(get<SessionRow>(this.#sql.findSession, [digest]));
    return row && toSession(row);
  }

  async touchSession(sessionId: string, at: string): Promise<void> {
    await this.#perform(run(this.#sql.touchSession, [at, sessionId]));
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    return (await this.#perform(run(this.#sql.deleteSession, [sessionId]))) === 1;
  }

  deleteEndedSessions(at: string, idleBefore: string): Promise<number> {
    return this.#perform(run(this.#sql.deleteEndedSessions, [at, idleBefore]));
  }

  async listSessions(userId: string, query: { at: string; idleBefore: string; limit: number }): Promise<SessionRecord[]> {
    const rows = await this.#perform(all<SessionRow>(this.#sql.listSessions, [userId, query.at, query.idleBefore, query.limit]));
    return rows.map(toSession);
  }

  async deleteUserSession(userId: string, sessionId: string): Promise<boolean> {
    return (await this.#perform(run(this.#sql.deleteUserSession, [sessionId, userId]))) === 1;
  }

  deleteOtherSessions(userId: string, keepSessionId: string): Promise<number> {
    return this.#perform(run(this.#sql.deleteOtherSessions, [userId, keepSessionId]));
  }

  async createItem(ownerId: string, title: string, createdAt: string): Promise<Item> {
    const id = newId('itm');
    await this.#perform(run(this.#sql.createItem, [id, ownerId, title, createdAt]));
    return { id, title, ownerId, createdAt };
  }

  shareItem(itemId: string, withUserId: string, at: string): Promise<void> {
    const sql = this.#sql;
    return this.#perform(
      (function* () {
        const item = yield* get<{ ownerId: string }>(sql.itemOwner, [itemId]);
        if (!item) throw new Error(`no item ${itemId}`);
        if (item.ownerId === withUserId) throw new Error('an item cannot be shared with its owner');
        yield* run(sql.shareItem, [withUserId, itemId, at]);
      })(),
    );
  }

  listItems(scope: ListScope, query: PageQuery): Promise<Item[]> {
    const statements = this.#sql.list[scope][query.sort];
    return this.#perform(
      query.after
        ? all<Item>(statements.after, [query.userId, query.limit, query.after.createdAt, query.after.id])
        : all<Item>(statements.first, [query.userId, query.limit]),
    );
  }

  leaseQuota(keyId: string, request: QuotaRequest): Promise<QuotaLease> {
    return this.#perform(this.#engine.dialect.leaseQuota(keyId, request));
  }

  async takeAttempt(key: string, atMs: number, rule: AttemptRule): Promise<AttemptCount | undefined> {
    const row = await this.#perform(
      get<{ startMs: number | string; attempts: number; lastMs: number | string }>(this.#sql.takeAttempt, [
        key,
        atMs,
        rule.free,
        rule.backoffMs,
        rule.maxBackoffMs,
        rule.forgetMs,
        MAX_DOUBLINGS,
      ]),
    );
    return toAttemptCount(row);
  }

  /** `requested` counts every request of the window, this one too: what came before it is what was left for it. */
  async leaseBudget(key: string, request: QuotaRequest): Promise<QuotaLease> {
    const row = await this.#perform(
      get<{ requested: number | string; resetMs: number | string }>(this.#sql.leaseBudget, [key, request.windowMs, request.want]),
    );
    if (!row) throw new Error('the budget upsert returned no row');
    const before = Number(row.requested) - request.want;
    const granted = Math.min(request.want, Math.max(request.limit - before, 0));
    return { granted, used: Math.min(request.limit, before + granted), resetMs: Math.max(Number(row.resetMs), 0) };
  }

  deleteBudgetsBefore(beforeMs: number): Promise<number> {
    return this.#perform(run(this.#sql.deleteBudgetsBefore, [beforeMs]));
  }

  async releaseAttempt(key: string): Promise<void> {
    await this.#perform(run(this.#sql.releaseAttempt, [key]));
  }

  async findAttempts(key: string): Promise<AttemptCount | undefined> {
    return toAttemptCount(await this.#perform(get<{ startMs: number | string; attempts: number; lastMs: number | string }>(this.#sql.findAttempts, [key])));
  }

  async clearAttempts(key: string): Promise<void> {
    await this.#perform(run(this.#sql.clearAttempts, [key]));
  }

  deleteAttemptsBefore(beforeMs: number, prefix: string): Promise<number> {
    return this.#perform(run(this.#sql.deleteAttemptsBefore, [beforeMs, prefix]));
  }

  async readMeta(key: string): Promise<Buffer | undefined> {
    return (await this.#perform(get<{ value: Buffer }>(this.#sql.readMeta, [notSecret(key)])))?.value;
  }

  async writeMeta(key: string, value: Buffer): Promise<void> {
    await this.#perform(run(this.#sql.writeMeta, [notSecret(key), value]));
  }

  secret(name: string): Promise<Buffer> {
    const sql = this.#sql;
    return this.#perform(
      (function* () {
        yield* run(sql.addSecret, [`secret:${name}`, randomBytes(32)]);
        const row = yield* get<{ value: Buffer }>(sql.readMeta, [`secret:${name}`]);
        if (!row) throw new Error(`secret ${name} vanished`);
        return row.value;
      })(),
    );
  }

  async ping(): Promise<void> {
    await this.#perform(get(this.#sql.ping));
  }

  stats(): StoreStats {
    return this.#engine.stats?.() ?? {};
  }

  close(): Promise<void> {
    return this.#engine.close();
  }
}

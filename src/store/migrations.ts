/**
 * The schema migrations of both engines, written once: each is a function of a `SchemaDialect`, rendered for SQLite
 * (`MIGRATIONS`, applied in order at startup; `PRAGMA user_version` records how many have run) and for
 * PostgreSQL (`POSTGRES_MIGRATIONS`; `schema_migrations` records how many have run, and they run under an
 * advisory lock, so instances starting together apply each one once). Append new ones; never edit one that has
 * shipped: SQLite keeps each CREATE statement's text in `sqlite_schema`, so even a comment is part of what a
 * migration did (`test/store/migrations.test.ts` pins each shipped one's SQLite text by its SHA-256).
 * `test/store/schema.test.ts` checks that the two renderings end at the same tables, columns and keys, and
 * that `SCHEMA_VERSIONS` (`schema-policy.ts`) has an entry for each migration.
 *
 * The comments inside the SQL are SQLite's as they shipped; PostgreSQL gets the same ones, so a column a
 * dialect type shortens or lengthens leaves its comment a column off there.
 */

/** The channel every cache-relevant write notifies, from a PostgreSQL trigger, in the writing transaction. */
export const CHANGE_CHANNEL = 'store_changes';

/** What differs between the engines' SQL. Everything else in a migration is written once. */
export interface SchemaDialect {
  readonly text: string;
  /** A digest's bytes. */
  readonly blob: string;
  /**
   * An instant. SQLite has no time type: RFC 3339 UTC text with milliseconds, which sorts as text.
   * PostgreSQL: `timestamptz`.
   */
  readonly timestamp: string;
  /** A count. SQLite's INTEGER is 64-bit whatever it is called; PostgreSQL's `integer` is 32-bit. */
  readonly integer: string;
  /** Milliseconds or windows since the epoch: past 32 bits, so PostgreSQL's `bigint`. */
  readonly bigint: string;
  /**
   * Ends every CREATE TABLE's parentheses. SQLite's `STRICT` makes it refuse a value of the wrong type, as
   * PostgreSQL always does.
   */
  readonly strict: string;
  /**
   * After `strict`, on a table that is all primary key (shares): SQLite's `WITHOUT ROWID` stores it as its key's
   * b-tree alone. PostgreSQL has no rowid to leave out.
   */
  readonly withoutRowid: string;
  /**
   * Before TABLE, on a table whose rows a crash may lose (rate limits): PostgreSQL's `UNLOGGED` writes no WAL on
   * the hot write. SQLite has nothing like it.
   */
  readonly unlogged: string;
  /**
   * `column` with each control character (U+0001 to U+001F, U+007F to U+009F) replaced by U+FFFD: PostgreSQL by one
   * regular expression, SQLite (which has none) by a `replace` per character. U+0000 is left: PostgreSQL cannot hold
   * it, and SQLite's text functions stop at it.
   */
  withoutControlCharacters(column: string): string;
  /**
   * Statements only PostgreSQL runs, appended at a migration's end: the row triggers that NOTIFY
   * `CHANGE_CHANNEL` (SQLite's caches read `PRAGMA data_version` instead, which any connection's commit
   * changes), and `lease_quota` (SQLite's store leases quota in its own write transaction; PostgreSQL's
   * instances need one round trip and the database's clock).
   */
  postgresOnly(sql: string): string;
}

/** The control characters a text may hold and a key's name may not (migration 10): U+0001 to U+001F, U+007F to U+009F. */
const CONTROL_CHARACTERS: readonly number[] = [
  ...Array.from({ length: 31 }, (_, index) => index + 1),
  ...Array.from({ length: 33 }, (_, index) => index + 0x7f),
];

export const SQLITE: SchemaDialect = {
  text: 'TEXT',
  blob: 'BLOB',
  timestamp: 'TEXT',
  integer: 'INTEGER',
  bigint: 'INTEGER',
  strict: ' STRICT',
  withoutRowid: ', WITHOUT ROWID',
  unlogged: '',
  withoutControlCharacters: (column) => CONTROL_CHARACTERS.reduce((text, code) => `replace(${text}, char(${code}), char(65533))`, column),
  postgresOnly: () => '',
};

export const POSTGRES: SchemaDialect = {
  text: 'text',
  blob: 'bytea',
  timestamp: 'timestamptz',
  integer: 'integer',
  bigint: 'bigint',
  strict: '',
  withoutRowid: '',
  unlogged: 'UNLOGGED ',
  withoutControlCharacters: (column) => `regexp_replace(${column}, '[\\x01-\\x1f\\x7f-\\x9f]', U&'\\FFFD', 'g')`,
  postgresOnly: (sql) => sql,
};

/** One migration, for either engine. */
export type Migration = (d: SchemaDialect) => string;

/**
 * In order. In PostgreSQL, a table whose rows a cache holds (keys, items, shares, sessions) carries row triggers
 * that NOTIFY `CHANGE_CHANNEL` in the writing transaction, whoever writes: a server instance, the keys CLI, or an
 * operator's SQL. A key's last-use and a session's last-seen time are left out, so routine touches do not flush
 * every instance's cache. A new table a cache reads gets them too.
 */
export const SCHEMA_MIGRATIONS: readonly Migration[] = [
  (d) => `
  CREATE TABLE meta (
    key ${d.text} PRIMARY KEY,
    value ${d.blob} NOT NULL
  )${d.strict};

  CREATE TABLE users (
    id ${d.text} PRIMARY KEY,
    name ${d.text} NOT NULL UNIQUE,
    created_at ${d.timestamp} NOT NULL
  )${d.strict};

  CREATE TABLE api_keys (
    id ${d.text} PRIMARY KEY,
    user_id ${d.text} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest ${d.blob} NOT NULL UNIQUE,   -- SHA-256 of the key; the key itself is never stored
    hint ${d.text} NOT NULL,            -- prefix and last four characters, for lists
    created_at ${d.timestamp} NOT NULL,
    last_used_at ${d.timestamp},
    revoked_at ${d.timestamp}
  )${d.strict};
  CREATE INDEX api_keys_by_user ON api_keys(user_id, created_at);

  CREATE TABLE items (
    id ${d.text} PRIMARY KEY,
    owner_id ${d.text} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title ${d.text} NOT NULL,
    created_at ${d.timestamp} NOT NULL       -- RFC 3339 UTC with milliseconds: sorts as text
  )${d.strict};
  CREATE INDEX items_by_owner_in_order ON items(owner_id, created_at, id);

  CREATE TABLE shares (
    user_id ${d.text} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    item_id ${d.text} NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    created_at ${d.timestamp} NOT NULL,
    PRIMARY KEY (user_id, item_id)
  )${d.strict}${d.withoutRowid};
  ${d.postgresOnly(`
  CREATE FUNCTION notify_store_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_NAME);
    RETURN NULL;
  END $$;
  -- Row triggers (a statement that changes nothing notifies nothing; a transaction's repeats fold into one).
  CREATE TRIGGER items_changed AFTER INSERT OR UPDATE OR DELETE ON items FOR EACH ROW EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER items_truncated AFTER TRUNCATE ON items FOR EACH STATEMENT EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER shares_changed AFTER INSERT OR UPDATE OR DELETE ON shares FOR EACH ROW EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER shares_truncated AFTER TRUNCATE ON shares FOR EACH STATEMENT EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER api_keys_added_or_removed AFTER INSERT OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
    EXECUTE FUNCTION notify_store_change();
  `)}`,
  // 2: accounts for the web application, named and expiring keys, sessions, the key audit trail. Sessions are
  // cached like keys, so in PostgreSQL they notify too (but not a last-seen touch); key events are never cached.
  (d) => `
  ALTER TABLE users ADD COLUMN password_hash ${d.text};             -- Argon2id PHC string; NULL for users the keys CLI made

  ALTER TABLE api_keys ADD COLUMN name ${d.text} NOT NULL DEFAULT 'CLI key';
  ALTER TABLE api_keys ADD COLUMN expires_at ${d.timestamp};             -- NULL: made before keys expired; works until revoked
  ALTER TABLE api_keys ADD COLUMN rolled_at ${d.timestamp};
  ALTER TABLE api_keys ADD COLUMN replaced_by ${d.text} REFERENCES api_keys(id);

  CREATE TABLE sessions (
    id ${d.text} PRIMARY KEY,
    user_id ${d.text} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest ${d.blob} NOT NULL UNIQUE,   -- SHA-256 of the cookie's token; the token itself is never stored
    created_at ${d.timestamp} NOT NULL,
    last_seen_at ${d.timestamp} NOT NULL,
    expires_at ${d.timestamp} NOT NULL       -- absolute expiry
  )${d.strict};
  CREATE INDEX sessions_by_expiry ON sessions(expires_at);

  CREATE TABLE key_events (
    id ${d.text} PRIMARY KEY,
    key_id ${d.text} NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    user_id ${d.text} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    type ${d.text} NOT NULL,            -- created, rolled, revoked, expired, first_used: each at most once per key
    source ${d.text} NOT NULL,          -- web, cli, api, system
    at ${d.timestamp} NOT NULL,
    UNIQUE (key_id, type)
  )${d.strict};
  CREATE INDEX key_events_by_user_in_order ON key_events(user_id, at, id);
  ${d.postgresOnly(`
  CREATE TRIGGER sessions_added_or_removed AFTER INSERT OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER sessions_truncated AFTER TRUNCATE ON sessions FOR EACH STATEMENT EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER sessions_changed AFTER UPDATE ON sessions FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_seen_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_seen_at'))
    EXECUTE FUNCTION notify_store_change();
  `)}`,
  // 3: shared rate-limit windows: what each key has been granted in its current fixed window (see docs/adr/0010).
  // PostgreSQL: UNLOGGED, no WAL on the hot write (a crash empties it, which forgives at most one window's count),
  // and the window is counted by the database's clock, in `lease_quota`.
  (d) => `
  CREATE ${d.unlogged}TABLE rate_limits (
    key_id ${d.text} PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
    window_index ${d.bigint} NOT NULL, -- whole windows since the epoch
    used ${d.integer} NOT NULL          -- requests granted in that window
  )${d.strict};
  ${d.postgresOnly(`
  -- Grants up to p_want of the key's quota in the current window, by the database's clock, so every
  -- instance counts in the same window whatever its own clock says. One round trip, one row lock.
  CREATE FUNCTION lease_quota(p_key text, p_limit integer, p_window_ms bigint, p_want integer,
                              OUT granted integer, OUT used integer, OUT reset_ms bigint)
  LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
    current_window bigint := now_ms / p_window_ms;
    counted integer;
    counted_window bigint;
  BEGIN
    INSERT INTO rate_limits (key_id, window_index, used) VALUES (p_key, current_window, 0) ON CONFLICT (key_id) DO NOTHING;
    SELECT r.window_index, r.used INTO counted_window, counted FROM rate_limits r WHERE r.key_id = p_key FOR UPDATE;
    IF counted_window < current_window THEN
      counted := 0;
    ELSE
      current_window := counted_window;
    END IF;
    granted := least(p_want, greatest(p_limit - counted, 0));
    used := counted + granted;
    UPDATE rate_limits SET window_index = current_window, used = lease_quota.used WHERE key_id = p_key;
    reset_ms := greatest((current_window + 1) * p_window_ms - now_ms, 0);
  END $$;
  `)}`,
  // 4: failed sign-ins per account and per client address, counted in the database so every process shares them.
  (d) => `
  CREATE TABLE failure_windows (
    key ${d.text} PRIMARY KEY,          -- 'account:<name>' or 'client:<address>'
    start_ms ${d.bigint} NOT NULL,     -- when the window began, in milliseconds since the epoch
    failures ${d.integer} NOT NULL
  )${d.strict};
  CREATE INDEX failure_windows_by_start ON failure_windows(start_ms);
  `,
  // 5: the failure windows become attempt counts: each attempt is taken before the password is checked (and given
  // back when it signs in), and a count is forgotten a while after its latest attempt, so it keeps when that was.
  (d) => `
  ALTER TABLE failure_windows RENAME TO attempt_counts;
  ALTER TABLE attempt_counts RENAME COLUMN failures TO attempts;
  ALTER TABLE attempt_counts ADD COLUMN last_ms ${d.bigint} NOT NULL DEFAULT 0; -- the latest attempt, in milliseconds since the epoch
  UPDATE attempt_counts SET last_ms = start_ms;
  DROP INDEX failure_windows_by_start;
  CREATE INDEX attempt_counts_by_last ON attempt_counts(last_ms);
  `,
  // 6: a user's sessions, listed and ended from the settings page (and all but one at a password change).
  () => `
  CREATE INDEX sessions_by_user ON sessions(user_id, created_at);
  `,
  // 7: a revoked or expired key its owner took off their key list (issue 20); its events stay.
  (d) => `
  ALTER TABLE api_keys ADD COLUMN removed_at ${d.timestamp};
  `,
  // 8: key events and removed keys are forgotten after KEY_EVENTS_RETENTION_DAYS (docs/data.md, "Retention").
  () => `
  CREATE INDEX key_events_by_time ON key_events(at);
  CREATE INDEX api_keys_by_removal ON api_keys(removed_at) WHERE removed_at IS NOT NULL;
  CREATE INDEX api_keys_by_replacement ON api_keys(replaced_by) WHERE replaced_by IS NOT NULL; -- a deleted key's successor, found at once
  `,
  // 9: a credential version on each user (issue 33): a password change bumps it, and a session is started only under
  // the version its sign-in read, and lives only while that is the user's. An expand step: the previous release
  // neither reads nor writes these; its sessions have NULL here and are ended by a password change as before.
  (d) => `
  ALTER TABLE users ADD COLUMN credential_version ${d.integer} NOT NULL DEFAULT 0;  -- bumped by every password change
  ALTER TABLE sessions ADD COLUMN credential_version ${d.integer};                  -- the user's version it started under; NULL: started by code of schema version 8
  `,
  // 10: budgets shared by every instance on the database, counted in fixed windows by the database's clock: the
  // failed-authentication budget per client address (issue 33), leased in blocks as the key quota is (docs/adr/0010).
  // `requested` counts every block asked for, granted or not, so one statement both counts and tells what it granted.
  // PostgreSQL: a key's change notifies its digest (`api_keys:<hex>`), so the other instances forget that key alone
  // rather than every key (issue 33); other tables still notify their name.
  // A key's name may hold no control character any more (account.yaml 2.0.0): each one a name holds is replaced by
  // U+FFFD, so every stored name answers as the contract now says.
  // An expand step: code of schema versions 8 and 9 neither reads nor writes the table, and reads no payload.
  (d) => `
  UPDATE api_keys SET name = ${d.withoutControlCharacters('name')} WHERE name <> ${d.withoutControlCharacters('name')};
  CREATE ${d.unlogged}TABLE shared_budgets (
    key ${d.text} PRIMARY KEY,          -- what is counted and for whom, e.g. 'failed-authentication:<HMAC of the address>'
    ends_ms ${d.bigint} NOT NULL,      -- when the current window ends, in milliseconds since the epoch
    requested ${d.bigint} NOT NULL     -- what was asked of the budget in that window
  )${d.strict};
  CREATE INDEX shared_budgets_by_end ON shared_budgets(ends_ms);
  ${d.postgresOnly(`
  CREATE FUNCTION notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    changed bytea;
  BEGIN
    IF TG_OP = 'DELETE' THEN changed := OLD.digest; ELSE changed := NEW.digest; END IF;
    PERFORM pg_notify('${CHANGE_CHANNEL}', 'api_keys:' || encode(changed, 'hex'));
    RETURN NULL;
  END $$;
  DROP TRIGGER api_keys_added_or_removed ON api_keys;
  DROP TRIGGER api_keys_changed ON api_keys;
  CREATE TRIGGER api_keys_added_or_removed AFTER INSERT OR DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_key_change();
  CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
    EXECUTE FUNCTION notify_key_change();
  `)}`,
];

/** The migrations as SQLite runs them (`sqlite-store.ts`). */
export const MIGRATIONS: readonly string[] = SCHEMA_MIGRATIONS.map((migration) => migration(SQLITE));

/** The migrations as PostgreSQL runs them (`postgres-store.ts`). */
export const POSTGRES_MIGRATIONS: readonly string[] = SCHEMA_MIGRATIONS.map((migration) => migration(POSTGRES));

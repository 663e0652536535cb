/** The channel every cache-relevant write notifies, from a trigger, in the writing transaction. */
export const CHANGE_CHANNEL = 'store_changes';

/**
 * PostgreSQL schema migrations, one for one with the SQLite ones in
 * `migrations.ts` (same tables, columns, keys; `test/store/schema.test.ts`
 * compares them). Timestamps are `timestamptz` here where SQLite keeps RFC 3339
 * text. `schema_migrations` records how many have run; they run under an
 * advisory lock, so instances starting together apply each one once. Append new
 * ones; never edit one that has shipped.
 *
 * A table whose rows a cache holds (keys, items, shares, sessions) carries row
 * triggers that NOTIFY `store_changes` in the writing transaction, whoever
 * writes: a server instance, the keys CLI, or an operator's SQL. A key's
 * last-use and a session's last-seen time are left out, so routine touches do
 * not flush every instance's cache.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (
    key text PRIMARY KEY,
    value bytea NOT NULL
  );

  CREATE TABLE users (
    id text PRIMARY KEY,
    name text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL
  );

  CREATE TABLE api_keys (
    id text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest bytea NOT NULL UNIQUE,   -- SHA-256 of the key; the key itself is never stored
    hint text NOT NULL,             -- prefix and last four characters, for lists
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at timestamptz
  );
  CREATE INDEX api_keys_by_user ON api_keys(user_id, created_at);

  CREATE TABLE items (
    id text PRIMARY KEY,
    owner_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title text NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX items_by_owner_in_order ON items(owner_id, created_at, id);

  CREATE TABLE shares (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    item_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, item_id)
  );

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
  `,
  // 2: accounts for the web application, named and expiring keys, sessions, the key audit trail. Sessions are
  // cached like keys, so they notify too (but not a last-seen touch); key events are never cached.
  `
  ALTER TABLE users ADD COLUMN password_hash text;             -- Argon2id PHC string; NULL for users the keys CLI made

  ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT 'CLI key';
  ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;      -- NULL: made before keys expired; works until revoked
  ALTER TABLE api_keys ADD COLUMN rolled_at timestamptz;
  ALTER TABLE api_keys ADD COLUMN replaced_by text REFERENCES api_keys(id);

  CREATE TABLE sessions (
    id text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest bytea NOT NULL UNIQUE,  -- SHA-256 of the cookie's token; the token itself is never stored
    created_at timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  );
  CREATE INDEX sessions_by_expiry ON sessions(expires_at);

  CREATE TABLE key_events (
    id text PRIMARY KEY,
    key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    type text NOT NULL,            -- created, rolled, revoked, expired, first_used: each at most once per key
    source text NOT NULL,          -- web, cli, api, system
    at timestamptz NOT NULL,
    UNIQUE (key_id, type)
  );
  CREATE INDEX key_events_by_user_in_order ON key_events(user_id, at, id);

  CREATE TRIGGER sessions_added_or_removed AFTER INSERT OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER sessions_truncated AFTER TRUNCATE ON sessions FOR EACH STATEMENT EXECUTE FUNCTION notify_store_change();
  CREATE TRIGGER sessions_changed AFTER UPDATE ON sessions FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_seen_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_seen_at'))
    EXECUTE FUNCTION notify_store_change();
  `,
  // 3: shared rate-limit windows (docs/adr/0010). UNLOGGED: no WAL on the hot write; a crash empties it, which
  // forgives at most one window's count.
  `
  CREATE UNLOGGED TABLE rate_limits (
    key_id text PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
    window_index bigint NOT NULL,  -- whole windows since the epoch, by the database's clock
    used integer NOT NULL          -- requests granted in that window
  );

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
  `,
  // Failed sign-ins per account and per client address, shared by every instance (SQLite's migration 4).
  `
  CREATE TABLE failure_windows (
    key text PRIMARY KEY,
    start_ms bigint NOT NULL,
    failures integer NOT NULL
  );
  CREATE INDEX failure_windows_by_start ON failure_windows (start_ms);
  `,
  // Failure windows become attempt counts (SQLite's migration 5).
  `
  ALTER TABLE failure_windows RENAME TO attempt_counts;
  ALTER TABLE attempt_counts RENAME COLUMN failures TO attempts;
  ALTER TABLE attempt_counts ADD COLUMN last_ms bigint NOT NULL DEFAULT 0;
  UPDATE attempt_counts SET last_ms = start_ms;
  DROP INDEX failure_windows_by_start;
  CREATE INDEX attempt_counts_by_last ON attempt_counts (last_ms);
  `,
  // A user's sessions, listed and ended by the user (SQLite's migration 6).
  `
  CREATE INDEX sessions_by_user ON sessions (user_id, created_at);
  `,
  // A revoked or expired key its owner took off their key list (SQLite's migration 7).
  `
  ALTER TABLE api_keys ADD COLUMN removed_at timestamptz;
  `,
  // Key events and removed keys forgotten after the retention period (SQLite's migration 8).
  `
  CREATE INDEX key_events_by_time ON key_events (at);
  CREATE INDEX api_keys_by_removal ON api_keys (removed_at) WHERE removed_at IS NOT NULL;
  -- Deleting a key checks who names it as replaced_by: without this, a scan of every key per deleted key.
  CREATE INDEX api_keys_by_replacement ON api_keys (replaced_by) WHERE replaced_by IS NOT NULL;
  `,
  // A credential version on each user and the one each session started under (SQLite's migration 9).
  `
  ALTER TABLE users ADD COLUMN credential_version integer NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN credential_version integer;
  `,
];

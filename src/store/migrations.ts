/**
 * SQLite schema migrations, applied in order at startup; `PRAGMA user_version`
 * records how many have run. Append new ones; never edit one that has shipped.
 * `postgres-migrations.ts` holds the same schema for PostgreSQL, migration for
 * migration: append there too (`test/store/schema.test.ts` compares the two).
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL
  ) STRICT;

  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest BLOB NOT NULL UNIQUE,   -- SHA-256 of the key; the key itself is never stored
    hint TEXT NOT NULL,            -- prefix and last four characters, for lists
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  ) STRICT;
  CREATE INDEX api_keys_by_user ON api_keys(user_id, created_at);

  CREATE TABLE items (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    created_at TEXT NOT NULL       -- RFC 3339 UTC with milliseconds: sorts as text
  ) STRICT;
  CREATE INDEX items_by_owner_in_order ON items(owner_id, created_at, id);

  CREATE TABLE shares (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    PRIMARY KEY (user_id, item_id)
  ) STRICT, WITHOUT ROWID;
  `,
  // 2: accounts for the web application, named and expiring keys, sessions, the key audit trail.
  `
  ALTER TABLE users ADD COLUMN password_hash TEXT;             -- Argon2id PHC string; NULL for users the keys CLI made

  ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT 'CLI key';
  ALTER TABLE api_keys ADD COLUMN expires_at TEXT;             -- NULL: made before keys expired; works until revoked
  ALTER TABLE api_keys ADD COLUMN rolled_at TEXT;
  ALTER TABLE api_keys ADD COLUMN replaced_by TEXT REFERENCES api_keys(id);

  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    digest BLOB NOT NULL UNIQUE,   -- SHA-256 of the cookie's token; the token itself is never stored
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL       -- absolute expiry
  ) STRICT;
  CREATE INDEX sessions_by_expiry ON sessions(expires_at);

  CREATE TABLE key_events (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    type TEXT NOT NULL,            -- created, rolled, revoked, expired, first_used: each at most once per key
    source TEXT NOT NULL,          -- web, cli, api, system
    at TEXT NOT NULL,
    UNIQUE (key_id, type)
  ) STRICT;
  CREATE INDEX key_events_by_user_in_order ON key_events(user_id, at, id);
  `,
  // 3: shared rate-limit windows: what each key has been granted in its current fixed window (see docs/adr/0010).
  `
  CREATE TABLE rate_limits (
    key_id TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
    window_index INTEGER NOT NULL, -- whole windows since the epoch
    used INTEGER NOT NULL          -- requests granted in that window
  ) STRICT;
  `,
  // 4: failed sign-ins per account and per client address, counted in the database so every process shares them.
  `
  CREATE TABLE failure_windows (
    key TEXT PRIMARY KEY,          -- 'account:<name>' or 'client:<address>'
    start_ms INTEGER NOT NULL,     -- when the window began, in milliseconds since the epoch
    failures INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX failure_windows_by_start ON failure_windows(start_ms);
  `,
  // 5: the failure windows become attempt counts: each attempt is taken before the password is checked (and given
  // back when it signs in), and a count is forgotten a while after its latest attempt, so it keeps when that was.
  `
  ALTER TABLE failure_windows RENAME TO attempt_counts;
  ALTER TABLE attempt_counts RENAME COLUMN failures TO attempts;
  ALTER TABLE attempt_counts ADD COLUMN last_ms INTEGER NOT NULL DEFAULT 0; -- the latest attempt, in milliseconds since the epoch
  UPDATE attempt_counts SET last_ms = start_ms;
  DROP INDEX failure_windows_by_start;
  CREATE INDEX attempt_counts_by_last ON attempt_counts(last_ms);
  `,
  // 6: a user's sessions, listed and ended from the settings page (and all but one at a password change).
  `
  CREATE INDEX sessions_by_user ON sessions(user_id, created_at);
  `,
  // 7: a revoked or expired key its owner took off their key list (issue 20); its events stay.
  `
  ALTER TABLE api_keys ADD COLUMN removed_at TEXT;
  `,
  // 8: key events and removed keys are forgotten after KEY_EVENTS_RETENTION_DAYS (docs/data.md, "Retention").
  `
  CREATE INDEX key_events_by_time ON key_events(at);
  CREATE INDEX api_keys_by_removal ON api_keys(removed_at) WHERE removed_at IS NOT NULL;
  CREATE INDEX api_keys_by_replacement ON api_keys(replaced_by) WHERE replaced_by IS NOT NULL; -- a deleted key's successor, found at once
  `,
  // 9: a credential version on each user (issue 33): a password change bumps it, and a session is started only under
  // the version its sign-in read, and lives only while that is the user's. An expand step: the previous release
  // neither reads nor writes these; its sessions have NULL here and are ended by a password change as before.
  `
  ALTER TABLE users ADD COLUMN credential_version INTEGER NOT NULL DEFAULT 0;  -- bumped by every password change
  ALTER TABLE sessions ADD COLUMN credential_version INTEGER;                  -- the user's version it started under; NULL: started by code of schema version 8
  `,
];

/** The database as operators name it (issue 32 point 2): from a file, with its password apart, and never by default in production. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDatabaseUrl } from '../../src/config/database-secret.js';
import { ConfigError, describeDatabase, readServerConfig, readStoreConfig } from '../../src/config/env.js';

const folder = mkdtempSync(join(tmpdir(), 'database-setting-'));
function secretFile(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

describe('the PostgreSQL URL from a file', () => {
  it('reads DATABASE_URL_FILE as DATABASE_URL, its final newline the file’s', () => {
    const path = secretFile('url', 'postgres://api:s3cret@db.internal:5432/api\n');
    const config = readStoreConfig({ DATABASE_URL_FILE: path });
    expect(config.databaseUrl).toBe('postgres://api:s3cret@db.internal:5432/api');
    expect(describeDatabase(config)).toBe('postgres://api:***@db.internal:5432/api');
  });

  it('puts the password of DATABASE_PASSWORD_FILE into a URL that has none, encoded', () => {
    const password = secretFile('password', 'p@ss/word:1\n');
    expect(readDatabaseUrl({ DATABASE_URL: 'postgres://api@db.internal/api', DATABASE_PASSWORD_FILE: password })).toBe(
      'postgres://api:p%40ss%2Fword%3A1@db.internal/api',
    );
  });

  it.each([
    { name: 'both ways at once', env: () => ({ DATABASE_URL: 'postgres://h/db', DATABASE_URL_FILE: secretFile('u1', 'postgres://h/db') }), want: /not both/ },
    { name: 'a file that is not there', env: () => ({ DATABASE_URL_FILE: join(folder, 'missing') }), want: /cannot be read \(ENOENT\)/ },
    { name: 'an empty file', env: () => ({ DATABASE_URL_FILE: secretFile('empty', '\n') }), want: /is empty/ },
    {
      name: 'two passwords',
      env: () => ({ DATABASE_URL: 'postgres://api:one@h/db', DATABASE_PASSWORD_FILE: secretFile('p2', 'two') }),
      want: /holds a password and DATABASE_PASSWORD_FILE gives one too/,
    },
    { name: 'a password without a URL', env: () => ({ DATABASE_PASSWORD_FILE: secretFile('p3', 'x') }), want: /no effect without DATABASE_URL/ },
  ])('refuses $name, in one line that quotes no secret', ({ env, want }) => {
    const given = env();
    let thrown: unknown;
    try {
      readStoreConfig(given);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as Error).message;
    expect(message).toMatch(want);
    expect(message).not.toMatch(/s3cret|p@ss|\btwo\b/);
    expect(message).not.toContain('\n');
  });
});

describe('the engine in production', () => {
  it('refuses to default to SQLite: the line says how to name either engine', () => {
    expect(() => readServerConfig({ NODE_ENV: 'production' })).toThrow(
      /NODE_ENV=production needs its database named: DATABASE_URL or DATABASE_URL_FILE for PostgreSQL, or DATABASE_PATH/,
    );
  });

  it.each([{ DATABASE_PATH: '/var/lib/bearer-list-api/api.sqlite' }, { DATABASE_URL: 'postgres://api@db.internal/api' }])(
    'starts when the database is named: %o',
    (named) => {
      expect(() => readServerConfig({ NODE_ENV: 'production', ...named })).not.toThrow();
    },
  );

  it('still defaults to SQLite outside production (npm start on a fresh machine)', () => {
    expect(readServerConfig({}).databaseUrl).toBeUndefined();
  });
});

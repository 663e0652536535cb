/** How the data commands run PostgreSQL's own programs: the password in PGPASSWORD, never on the command line. */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPostgresTool } from '../../src/store/postgres-binaries.js';

const bin = mkdtempSync(join(tmpdir(), 'pg-bin-'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
const seen = join(bin, 'seen');
// A stand-in pg_dump that writes down its arguments and the password it was given.
writeFileSync(join(bin, 'pg_dump'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${seen}"\nprintf 'PGPASSWORD=%s\\n' "$PGPASSWORD" >> "${seen}"\n`);
chmodSync(join(bin, 'pg_dump'), 0o700);

describe('runPostgresTool', () => {
  it.each([
    { url: 'postgres://api:s3cret%25word@db:5432/api', password: 's3cret%word' },
    { url: 'postgres://api@db:5432/api?password=s3cret%25word&sslmode=require', password: 's3cret%word' },
    { url: 'postgres://api:bare%word@db:5432/api', password: 'bare%word' },
  ])('passes the password of $url in PGPASSWORD, never in the arguments', async ({ url, password }) => {
    await runPostgresTool('pg_dump', url, ['--format=custom'], { PG_BIN: bin, PATH: process.env['PATH'] ?? '' });
    const [args, given] = readFileSync(seen, 'utf8').split('PGPASSWORD=');
    expect(given?.trim()).toBe(password);
    expect(args).not.toContain('word');
    expect(args).toContain('--dbname=postgres://api@db:5432/api');
  });
});

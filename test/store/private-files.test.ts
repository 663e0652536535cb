import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { UnsafeLocationError, UnwritableLocationError } from '../../src/store/private-files.js';

const scratch = mkdtempSync(join(tmpdir(), 'private-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;
let folders = 0;
const newFolder = () => join(scratch, `case-${++folders}`);
const scratchFile = () => {
  const file = join(scratch, `file-${++folders}`);
  writeFileSync(file, '');
  return file;
};

describe('the database is private to the account that runs the service', () => {
  it('creates its folder 0700 and the database, WAL and SHM files 0600', async () => {
    const folder = join(newFolder(), 'data');
    const file = join(folder, 'api.sqlite');
    const store = await openStore({ databasePath: file });
    await store.createUser('ann', '2026-01-01T00:00:00.000Z');
    expect(mode(folder)).toBe(0o700);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path), path).toBe(0o600);
    await store.close();
  });

  it('tightens an existing database readable by others to 0600', async () => {
    const folder = newFolder();
    mkdirSync(folder, { mode: 0o700 });
    const file = join(folder, 'api.sqlite');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    await (await openStore({ databasePath: file })).close();
    expect(mode(file)).toBe(0o600);
  });

  it('refuses a folder other accounts can write to', async () => {
    const folder = newFolder();
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    await expect(openStore({ databasePath: join(folder, 'api.sqlite') })).rejects.toThrow(UnsafeLocationError);
    await expect(openStore({ databasePath: join(folder, 'api.sqlite') })).rejects.toThrow(/writable by other accounts \(mode 0777\); run chmod go-w/);
  });

  it('refuses a database file other accounts can write to', async () => {
    const folder = newFolder();
    mkdirSync(folder, { mode: 0o700 });
    const file = join(folder, 'api.sqlite');
    writeFileSync(file, '');
    chmodSync(file, 0o666);
    await expect(openStore({ databasePath: file })).rejects.toThrow(/api\.sqlite is writable by other accounts \(mode 0666\); run chmod 600/);
  });

  // A mistake an operator makes (DATABASE_PATH=/var/lib/bearer-list-api, or a file that is something else): the server
  // says it as a configuration error naming the path (main.ts, with-store.ts), not with SQLite's stack trace.
  it.each([
    ['under a file', () => join(scratchFile(), 'data', 'api.sqlite'), /a part of the path is a file, not a folder/],
    // Where Node 20's recursive mkdir never returned: procfs refuses a new folder with ENOENT under one that exists.
    ['in procfs', () => '/proc/no-such-folder/data/api.sqlite', /no folder can be made there/],
  ])('refuses a DATABASE_PATH %s with a configuration error, at once', async (_where, path, reason) => {
    const error = await openStore({ databasePath: path() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnwritableLocationError);
    expect((error as Error).message).toMatch(reason);
  });

  it('refuses a DATABASE_PATH that is a folder, naming a file in it to use instead', async () => {
    const folder = newFolder();
    mkdirSync(folder, { mode: 0o700 });
    await expect(openStore({ databasePath: folder })).rejects.toThrow(UnwritableLocationError);
    await expect(openStore({ databasePath: folder })).rejects.toThrow(
      `${folder} is a folder: set DATABASE_PATH to a file in it, such as ${join(folder, 'api.sqlite')}`,
    );
  });

  it('refuses a file that is not an SQLite database, and leaves it as it was', async () => {
    const folder = newFolder();
    mkdirSync(folder, { mode: 0o700 });
    const file = join(folder, 'notes.txt');
    writeFileSync(file, 'not a database, but long enough to be read as a header by SQLite: '.repeat(4), { mode: 0o600 });
    await expect(openStore({ databasePath: file })).rejects.toThrow(UnwritableLocationError);
    await expect(openStore({ databasePath: file })).rejects.toThrow(/notes\.txt is not an SQLite database \(or it is damaged\)/);
    expect(readFileSync(file, 'utf8')).toMatch(/^not a database/);
  });
});

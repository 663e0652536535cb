/** How a backup file is written, whatever the engine: atomically, never over the database itself, readable from anywhere. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replaceAtomically } from '../../src/store/data-commands.js';
import { openStore } from '../../src/store/open-store.js';
import { backupSqlite } from '../../src/store/sqlite-backup.js';

const scratch = mkdtempSync(join(tmpdir(), 'backup-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const folder = () => mkdtempSync(join(scratch, 'f-'));

describe('replaceAtomically', () => {
  it('leaves the last good file as it was, and nothing beside it, when the write fails', async () => {
    const at = folder();
    const out = join(at, 'latest.backup');
    writeFileSync(out, 'the last good backup');
    const failing = replaceAtomically(out, async (partial) => {
      writeFileSync(partial, 'half a backup');
      throw new Error('the disk is full');
    });
    await expect(failing).rejects.toThrow('the disk is full');
    expect(readFileSync(out, 'utf8')).toBe('the last good backup');
    expect(readdirSync(at)).toEqual(['latest.backup']);
  });

  it('puts the new file in its place once the write succeeds', async () => {
    const at = folder();
    const out = join(at, 'latest.backup');
    writeFileSync(out, 'the last good backup');
    expect(await replaceAtomically(out, async (partial) => writeFileSync(partial, 'a new backup', { mode: 0o600 }))).toBeUndefined();
    expect(readFileSync(out, 'utf8')).toBe('a new backup');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(at)).toEqual(['latest.backup']);
  });
});

describe('backupSqlite', () => {
  it('refuses to write over the database itself, even with --force', async () => {
    const at = folder();
    const databasePath = join(at, 'api.sqlite');
    const store = await openStore({ databasePath });
    await store.createUser('ann', '2026-01-01T00:00:00.000Z');
    await store.close();
    await expect(backupSqlite(databasePath, databasePath, { force: true })).rejects.toThrow(
      /is the database itself \(DATABASE_PATH\): give --out another file/,
    );
    const reopened = await openStore({ databasePath });
    expect(await reopened.findUserByName('ann')).toBeDefined();
    await reopened.close();
  });

  it('writes a plain rollback-journal file (not WAL), which opens from a read-only folder', async () => {
    const at = folder();
    const databasePath = join(at, 'api.sqlite');
    await (await openStore({ databasePath })).close();
    const out = join(at, 'copy.sqlite');
    await backupSqlite(databasePath, out);
    // Bytes 18 and 19 of an SQLite header: 1 for a rollback journal, 2 for WAL.
    expect([...readFileSync(out).subarray(18, 20)]).toEqual([1, 1]);
    expect(existsSync(`${out}-wal`)).toBe(false);
    expect(readdirSync(at).filter((file) => file.includes('partial'))).toEqual([]);
  });
});

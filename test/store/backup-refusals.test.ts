/** A backup that cannot be written is refused naming `--out` (exit 1, a refusal), never DATABASE_PATH (issue 32 point 6). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataCommandRefused } from '../../src/store/data-commands.js';
import { openStore } from '../../src/store/open-store.js';
import { backupSqlite } from '../../src/store/sqlite-backup.js';

describe('backup --out where nothing can be written', () => {
  it('is refused naming --out and the file given', async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'backup-refusal-')), 'api.sqlite');
    await (await openStore({ databasePath: database })).close();
    const refused = backupSqlite(database, '/proc/x.backup');
    await expect(refused).rejects.toBeInstanceOf(DataCommandRefused);
    await expect(refused).rejects.toThrow(/^cannot write \/proc\/x\.backup \(no folder can be made there\): .* give --out a file in a folder it can write$/);
  });
});

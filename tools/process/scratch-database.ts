import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ScratchDatabase {
  /** The temporary directory; the database's -wal and -shm files land here too. */
  dir: string;
  /** Where the database file goes (DATABASE_PATH); the server creates it on first start. */
  path: string;
  /** Deletes the directory and everything in it. */
  remove(): void;
}

/** A fresh temporary directory for a server's database, named `<prefix>…` under the OS temp dir. */
export function scratchDatabase(prefix = 'api-'): ScratchDatabase {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, path: join(dir, 'api.sqlite'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

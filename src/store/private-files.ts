import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The database holds every user's data, key digests and the cursor-signing secret: no other local account may read or replace it. */
export class UnsafeLocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeLocationError';
  }
}

/**
 * The database's folder or file cannot be made or opened by this account (EACCES, EROFS), or the path names a folder
 * or a file that is not an SQLite database: a configuration error naming DATABASE_PATH.
 */
export class UnwritableLocationError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'UnwritableLocationError';
  }
}

/** Why the file system refuses this account a place, by `code`. */
const REFUSALS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  // procfs and sysfs refuse a new folder with ENOENT although its parent is there.
  ENOENT: 'no folder can be made there',
  ENOTDIR: 'a part of the path is a file, not a folder',
};

const WRITABLE_BY_OTHERS = 0o022;
const STICKY = 0o1000;

/**
 * Prepares a database file readable and writable by this account only: its
 * folder is created 0700 and the file 0600 before SQLite opens it (SQLite
 * gives the -wal and -shm files the database file's mode). An existing file
 * readable by others is tightened to 0600. A folder or file that other
 * accounts can write to is refused: whoever can replace the file can replace
 * the data.
 */
export function prepareDatabaseFile(location: string): void {
  try {
    prepare(location);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal === undefined) throw error;
    throw new UnwritableLocationError(
      `cannot create or open the database at ${location} (${refusal}): ${accountName()} cannot write there. ` +
        'Set DATABASE_PATH to a file in a folder this account owns (such as /var/lib/bearer-list-api/api.sqlite, or $HOME/.local/share/bearer-list-api/api.sqlite), ' +
        'or give it the folder (docs/server.md, "Where the data lives")',
      { cause: error },
    );
  }
}

/**
 * Prepares a private file named on a command line (`backup --out`) as `prepareDatabaseFile` does, but a refusal names
 * that option and the file it gave (`location` may be a partial file beside it), not DATABASE_PATH: `refused` makes the error the command throws.
 */
export function preparePrivateFile(location: string, option: { name: string; value: string }, refused: (message: string) => Error): void {
  try {
    prepare(location);
  } catch (error) {
    if (error instanceof UnsafeLocationError)
      throw refused(`${error.message.replace(/ or choose another DATABASE_PATH$/, '')} or give ${option.name} another folder`);
    const refusal = refusalOf(error);
    if (refusal === undefined) throw error;
    throw refused(`cannot write ${option.value} (${refusal}): ${accountName()} cannot write there; give ${option.name} a file in a folder it can write`);
  }
}

function refusalOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? undefined : REFUSALS[code];
}

function accountName(): string {
  return process.getuid ? `uid ${process.getuid()}` : 'this account';
}

function prepare(location: string): void {
  const folder = dirname(location);
  makeFolders(folder);
  const folderMode = statSync(folder).mode;
  // A shared sticky folder such as /tmp lets others add files but not replace ours.
  if (folderMode & WRITABLE_BY_OTHERS && !(folderMode & STICKY)) {
    throw new UnsafeLocationError(`${folder} is writable by other accounts (mode ${octal(folderMode)}); run chmod go-w on it or choose another DATABASE_PATH`);
  }
  if (!existsSync(location)) closeSync(openSync(location, 'a', 0o600));
  const file = statSync(location);
  // DATABASE_PATH=/var/lib/bearer-list-api (the folder meant for it): SQLite would only say "unable to open database file".
  if (file.isDirectory())
    throw new UnwritableLocationError(`${location} is a folder: set DATABASE_PATH to a file in it, such as ${join(location, 'api.sqlite')}`);
  const fileMode = file.mode;
  if (fileMode & WRITABLE_BY_OTHERS) {
    throw new UnsafeLocationError(`${location} is writable by other accounts (mode ${octal(fileMode)}); run chmod 600 on it`);
  }
  if (fileMode & 0o077) chmodSync(location, 0o600);
}

/**
 * `mkdir -p`, 0700, one level at a time from the first missing folder down. Not `mkdirSync(folder, { recursive: true })`:
 * on Node 20, where mkdir fails with ENOENT under a parent that exists (/proc, /sys), it loops forever, and the
 * process cannot even be stopped with SIGTERM.
 */
function makeFolders(folder: string): void {
  const missing: string[] = [];
  for (let at = folder; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
  for (const each of missing) mkdirSync(each, { mode: 0o700 });
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

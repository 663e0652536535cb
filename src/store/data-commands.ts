/** What the data commands (`backup`, `restore`, `migrate:store`) share, whatever the engine. */
import { renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Rows per data table, by name: what a backup holds, what a restore or a copy brought. */
export type TableCounts = Record<string, number>;

/** The command cannot do what it was asked without losing data, or its input is not what it needs. Exit code 1. */
export class DataCommandRefused extends Error {
  override name = 'DataCommandRefused';
}

/**
 * Writes `out` through a file beside it (`.<name>.partial-<pid>`, prepared 0600 by `write`), renamed over `out`
 * only once `write` has succeeded: a backup that fails (a full disk, a refused connection, a failed check) leaves
 * the last good file as it was, and nothing half-written under its name or beside it.
 */
export async function replaceAtomically<T>(out: string, write: (partial: string) => Promise<T>): Promise<T> {
  const partial = join(dirname(out), `.${basename(out)}.partial-${process.pid}`);
  const remove = () => {
    for (const file of [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`]) rmSync(file, { force: true });
  };
  remove();
  try {
    const result = await write(partial);
    renameSync(partial, out);
    return result;
  } finally {
    remove();
  }
}

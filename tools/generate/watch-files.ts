import { basename } from 'node:path';
import { watch } from 'chokidar';

export interface FileWatch {
  close(): Promise<void>;
}

/**
 * Watches folders and everything under them with chokidar, and reports each burst of changes
 * once, `quietMs` after its last event: editors save in several steps (write a temp file, rename
 * it over the original, touch), and one save should run once. chokidar does the watching that used
 * to be written here: a watcher per directory (Node 20's `recursive` on Linux loses a file once an
 * editor has renamed a new copy over it), new directories picked up, and atomic saves seen as one
 * change. The gathering of a burst into one run is this project's own.
 *
 * Resolves once the folders are scanned, so a save made after it is seen.
 *
 * @param folders absolute folder paths
 * @param onChanges receives the absolute paths changed in the burst and when its first event came (`performance.now()`)
 */
export async function watchFolders(folders: string[], onChanges: (changed: string[], firstEventAt: number) => void, quietMs = 50): Promise<FileWatch> {
  let pending = new Set<string>();
  let firstEventAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(folders, {
    ignoreInitial: true,
    // Installed packages and hidden folders (.git, an editor's) are not the project's files.
    ignored: (path) => basename(path) === 'node_modules' || (basename(path).startsWith('.') && !folders.includes(path)),
  });
  watcher.on('all', (_event, path) => {
    if (pending.size === 0) firstEventAt = performance.now();
    pending.add(path);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const changed = [...pending];
      pending = new Set();
      onChanges(changed, firstEventAt);
    }, quietMs);
  });
  // A folder that cannot be watched (removed meanwhile) is left out, as before; the others go on.
  watcher.on('error', () => undefined);
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}

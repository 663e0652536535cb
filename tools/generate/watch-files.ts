import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

export interface FileWatch {
  close(): void;
}

/**
 * Watches folders and everything under them, and reports each burst of changes
 * once, `quietMs` after its last event: editors save in several steps (write a
 * temp file, rename it over the original, touch), and one save should run once.
 *
 * Each directory gets its own non-recursive watcher. Node 20's `recursive` on Linux
 * watches files one by one and loses a file once an editor has renamed a new copy
 * over it (the second save goes unseen); a directory watcher sees every rename.
 *
 * @param folders absolute folder paths
 * @param onChanges receives the absolute paths changed in the burst and when its first event came (`performance.now()`)
 */
export function watchFolders(folders: string[], onChanges: (changed: string[], firstEventAt: number) => void, quietMs = 50): FileWatch {
  const watchers = new Map<string, FSWatcher>();
  let pending = new Set<string>();
  let firstEventAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const flush = () => {
    const changed = [...pending];
    pending = new Set();
    // A new or renamed directory needs its own watcher.
    for (const folder of folders) watchTree(folder);
    onChanges(changed, firstEventAt);
  };
  const watchTree = (directory: string) => {
    if (closed || watchers.has(directory)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(directory, (_event, name) => {
        if (pending.size === 0) firstEventAt = performance.now();
        pending.add(name === null ? directory : join(directory, name.toString()));
        clearTimeout(timer);
        timer = setTimeout(flush, quietMs);
      });
    } catch {
      return; // removed before we got to it
    }
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(directory);
    });
    watchers.set(directory, watcher);
    let entries: string[] = [];
    try {
      entries = readdirSync(directory, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
        .map((entry) => entry.name);
    } catch {
      // removed meanwhile
    }
    for (const entry of entries) watchTree(join(directory, entry));
  };

  for (const folder of folders) watchTree(folder);
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

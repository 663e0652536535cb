/**
 * Runs `IncrementalTypecheck` off the loop's main thread: a check takes seconds
 * of CPU, and meanwhile the loop must still see saves, write types and hear Ctrl-C.
 * It sends the errors of the files it checks first (`firstFolders`) as soon as it has them, then all.
 * The main thread cancels a check in flight by raising the shared counter past the
 * check's own number (`TypecheckThread.cancel`): a save made during a check makes it stale.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IncrementalTypecheck } from './typecheck.js';

const { configPath, latest, firstFolders } = workerData as { configPath: string; latest: SharedArrayBuffer; firstFolders: string[] };
const newest = new Int32Array(latest);
const typecheck = new IncrementalTypecheck(configPath);
const first = (fileName: string) => firstFolders.some((folder) => fileName.startsWith(`${folder}/`));
parentPort?.on('message', (request: { id: number }) => {
  try {
    const errors = typecheck.check(
      () => Atomics.load(newest, 0) > request.id,
      first,
      (firstErrors) => parentPort?.postMessage({ id: request.id, first: firstErrors }),
    );
    parentPort?.postMessage(errors === undefined ? { id: request.id, cancelled: true } : { id: request.id, errors });
  } catch (error) {
    parentPort?.postMessage({ id: request.id, failure: error instanceof Error ? error.message : String(error) });
  }
});

/**
 * Runs `IncrementalTypecheck` off the loop's main thread: a check takes seconds
 * of CPU, and meanwhile the loop must still see saves, write types and hear Ctrl-C.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IncrementalTypecheck } from './typecheck.js';

const typecheck = new IncrementalTypecheck((workerData as { configPath: string }).configPath);
parentPort?.on('message', (request: { id: number }) => {
  try {
    parentPort?.postMessage({ id: request.id, errors: typecheck.check() });
  } catch (error) {
    parentPort?.postMessage({ id: request.id, failure: error instanceof Error ? error.message : String(error) });
  }
});

import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TypecheckError } from './typecheck.js';

type Reply =
  | { id: number; first: TypecheckError[] }
  | { id: number; errors: TypecheckError[] }
  | { id: number; cancelled: true }
  | { id: number; failure: string };

/** One check: the errors of the files under `firstFolders` (and the global ones) as soon as they are known, then all of them. */
export interface TypecheckRun {
  first: Promise<TypecheckError[] | undefined>;
  all: Promise<TypecheckError[] | undefined>;
}

interface Waiting {
  first: (errors: TypecheckError[] | undefined) => void;
  resolve: (errors: TypecheckError[] | undefined) => void;
  reject: (error: Error) => void;
}

/**
 * The incremental typecheck in a worker thread; `check()` resolves with the errors of the project as it is
 * on disk, or `undefined` when `cancel()` made it stale first. The thread starts warming (a first full
 * check) as soon as it is made, so the first save finds it warm.
 */
export class TypecheckThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  /** The number of the newest request that counts; a check with a lower number stops at its next file. */
  readonly #latest = new Int32Array(new SharedArrayBuffer(4));
  #nextId = 0;

  /** @param firstFolders the folders whose files are checked first (absolute: `src`, `generated`). */
  constructor(configPath: string, firstFolders: readonly string[] = []) {
    // The worker is TypeScript when the loop runs under tsx; a worker does not inherit tsx's loader, so it registers it.
    const extension = extname(fileURLToPath(import.meta.url));
    const entry = new URL(`./typecheck-worker${extension}`, import.meta.url).href;
    const source =
      extension === '.ts'
        ? `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register(); await import(${JSON.stringify(entry)});`
        : `await import(${JSON.stringify(entry)});`;
    this.#worker = new Worker(source, { eval: true, workerData: { configPath, latest: this.#latest.buffer, firstFolders } });
    this.#worker.on('message', (reply: Reply) => {
      const waiting = this.#waiting.get(reply.id);
      if ('first' in reply) {
        waiting?.first(reply.first);
        return;
      }
      this.#waiting.delete(reply.id);
      if ('failure' in reply) waiting?.reject(new Error(reply.failure));
      else {
        // A check cancelled before its first files were done never told them: it is stale as a whole.
        waiting?.first(undefined);
        waiting?.resolve('cancelled' in reply ? undefined : reply.errors);
      }
    });
    this.#worker.on('error', (error) => this.#failAll(error));
    this.#worker.on('exit', (code) => this.#failAll(new Error(`the typecheck thread exited (code ${code})`)));
  }

  check(): TypecheckRun {
    const id = this.#nextId++;
    Atomics.store(this.#latest, 0, id);
    let first: Waiting['first'] = () => undefined;
    const firstErrors = new Promise<TypecheckError[] | undefined>((resolve) => {
      first = resolve;
    });
    const all = new Promise<TypecheckError[] | undefined>((resolve, reject) => {
      this.#waiting.set(id, { first, resolve, reject });
      this.#worker.postMessage({ id });
    });
    // A failure rejects `all`; `first` then never comes, so it settles with it.
    return { first: Promise.race([firstErrors, all.then(() => firstErrors)]), all };
  }

  /** Makes every check asked for so far stale: the one in flight stops at its next file and resolves `undefined`. */
  cancel(): void {
    Atomics.store(this.#latest, 0, this.#nextId);
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }

  #failAll(error: Error): void {
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TypecheckError } from './typecheck.js';

type Reply = { id: number; errors: TypecheckError[] } | { id: number; failure: string };

/** The incremental typecheck in a worker thread; `check()` resolves with the errors of the project as it is on disk. */
export class TypecheckThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (errors: TypecheckError[]) => void; reject: (error: Error) => void }>();
  #nextId = 0;

  constructor(configPath: string) {
    // The worker is TypeScript when the loop runs under tsx; a worker does not inherit tsx's loader, so it registers it.
    const extension = extname(fileURLToPath(import.meta.url));
    const entry = new URL(`./typecheck-worker${extension}`, import.meta.url).href;
    const source =
      extension === '.ts'
        ? `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register(); await import(${JSON.stringify(entry)});`
        : `await import(${JSON.stringify(entry)});`;
    this.#worker = new Worker(source, { eval: true, workerData: { configPath } });
    this.#worker.on('message', (reply: Reply) => {
      const waiting = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if ('failure' in reply) waiting?.reject(new Error(reply.failure));
      else waiting?.resolve(reply.errors);
    });
    this.#worker.on('error', (error) => this.#failAll(error));
    this.#worker.on('exit', (code) => this.#failAll(new Error(`the typecheck thread exited (code ${code})`)));
  }

  check(): Promise<TypecheckError[]> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ id });
    });
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }

  #failAll(error: Error): void {
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

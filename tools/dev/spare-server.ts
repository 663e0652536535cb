import { type PreloadedServer, preloadServer, type StagedServer, type StartServerOptions } from '../process/server.js';

/**
 * `npm run dev`'s spare server: a process started between saves with the server's code loaded and nothing read
 * yet (`LOAD_ON_SIGNAL=1`). A save of the spec changes no code the server runs (`generated/` holds types only),
 * so the next server is the spare told to read its contracts: loading the code (about a second of CPU under tsx)
 * is done while nobody waits instead of beside the save's typecheck. Any save in `src/` makes the spare stale; it
 * is stopped at once, and the next server starts cold, as it would without one.
 */
export class SpareServer {
  readonly #options: StartServerOptions;
  #spare: PreloadedServer | undefined;
  #closed = false;

  constructor(options: StartServerOptions) {
    this.#options = options;
  }

  /** Starts a spare, unless one is waiting already. */
  fill(): void {
    if (!this.#spare && !this.#closed) this.#spare = preloadServer(this.#options);
  }

  /** The server's code changed since the spare loaded it: stops it. */
  discard(): void {
    const spare = this.#spare;
    this.#spare = undefined;
    void spare?.discard();
  }

  /** The spare, now reading its contracts and held before it listens; undefined when there is none. */
  take(): StagedServer | undefined {
    const spare = this.#spare;
    this.#spare = undefined;
    return spare?.stage();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const spare = this.#spare;
    this.#spare = undefined;
    await spare?.discard();
  }
}

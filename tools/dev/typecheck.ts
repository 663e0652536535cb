import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { typescriptCommand } from '../process/commands.js';
import { describeExit, type LaunchedProcess, launch } from '../process/launch.js';

/** One TypeScript error, located. */
export interface TypecheckError {
  /** Absolute path, or undefined for a global error (options, missing lib). */
  file: string | undefined;
  line: number;
  column: number;
  code: number;
  /** The head of the message chain: the sentence tsc prints first. */
  message: string;
}

/** One check: the errors of the server's files (and the global ones) as soon as they are known, then all of them. */
export interface TypecheckRun {
  /** The server's files' errors; undefined when a newer save made the check stale first. */
  first: Promise<TypecheckError[] | undefined>;
  /** The whole project's errors (the server's again among them); undefined when stale. */
  all: Promise<TypecheckError[] | undefined>;
}

export interface TypecheckConfigs {
  /** The server's files (`tsconfig.build.json`: `src/`, `generated/`): their verdict holds the restart back. */
  server: string;
  /** The whole project (`tsconfig.json`: tests and tools too), said when done. */
  all: string;
}

/** How far down the whole project's check runs: it must not slow the new server's start, which it runs beside. */
const ALL_NICENESS = 10;

/**
 * The dev loop's typecheck: TypeScript 7's native compiler (`npm run typecheck`'s), incremental, in two runs per
 * check: the server's files first, whose errors decide the restart, then the whole project, said when done. It
 * replaced TypeScript 5's API kept warm in a worker thread, which took 5 s on this machine for `src/` after a change
 * to the generated types, where the native compiler takes 1.5 s from a fresh process. Each run is a process: a newer
 * save stops it at once. Their incremental state lives in a folder of the loop's own for its life (not the
 * project's `node_modules/.cache`, which copies of the project share by a link), so only the first check is cold.
 */
export class Typecheck {
  readonly #root: string;
  readonly #configs: TypecheckConfigs;
  readonly #state = mkdtempSync(join(tmpdir(), 'dev-typecheck-'));
  /** Aborted by `cancel`: every run asked for so far. */
  #stale = new AbortController();
  /** The runs' processes end before the next starts: two compilers must not write one incremental state. */
  #previous: Promise<unknown> = Promise.resolve();

  constructor(root: string, configs: TypecheckConfigs) {
    this.#root = root;
    this.#configs = configs;
  }

  /** Checks the project as it is on disk now, after stopping any check still running. */
  check(): TypecheckRun {
    this.cancel();
    const signal = this.#stale.signal;
    const after = this.#previous;
    const first = after.then(() => this.#run(this.#configs.server, 'server', signal, 0));
    const all = first.then((errors) => (errors === undefined ? undefined : this.#run(this.#configs.all, 'all', signal, ALL_NICENESS)));
    this.#previous = all.catch(() => undefined);
    return { first, all };
  }

  /** Makes every check asked for so far stale: its process is killed, and it answers undefined. */
  cancel(): void {
    this.#stale.abort();
    this.#stale = new AbortController();
  }

  async close(): Promise<void> {
    this.cancel();
    await this.#previous;
    rmSync(this.#state, { recursive: true, force: true });
  }

  async #run(config: string, name: string, signal: AbortSignal, niceness: number): Promise<TypecheckError[] | undefined> {
    if (signal.aborted) return undefined;
    // One thread: the typecheck shares two cores with the lint and the next server's start, and TypeScript 7's
    // parallel checkers then cost more CPU and more time (after a spec save at a load of 7: 1.6 to 2.0 s wall and
    // 1.5 s of CPU single-threaded, against 2.4 to 2.9 s and 2.0 to 2.3 s with its default checkers).
    const args = [
      '-p',
      config,
      '--noEmit',
      '--incremental',
      '--tsBuildInfoFile',
      join(this.#state, `${name}.tsbuildinfo`),
      '--pretty',
      'false',
      '--singleThreaded',
    ];
    const child: LaunchedProcess = launch(typescriptCommand(args), { cwd: this.#root, ...(niceness > 0 && { niceness }) });
    const kill = () => void child.stop({ signal: 'SIGKILL' });
    signal.addEventListener('abort', kill, { once: true });
    const exit = await child.exited;
    signal.removeEventListener('abort', kill);
    if (signal.aborted) return undefined;
    const errors = parseTypecheckErrors(child.stdout(), this.#root);
    if (exit.code !== 0 && errors.length === 0)
      throw new Error(`the typecheck of ${config} failed without an error to show (${describeExit(exit)}): ${child.outputTail(5)}`);
    return errors;
  }
}

const LOCATED = /^(.+?)\((\d+),(\d+)\): error TS(\d+): (.*)$/;
const GLOBAL = /^error TS(\d+): (.*)$/;

/** The errors of `tsc --pretty false`'s output: one line each (the lines under one, indented, go on its message chain). */
export function parseTypecheckErrors(output: string, root: string): TypecheckError[] {
  const errors: TypecheckError[] = [];
  for (const line of output.split('\n')) {
    const located = LOCATED.exec(line);
    if (located) {
      const [, file, row, column, code, message] = located as unknown as [string, string, string, string, string, string];
      errors.push({ file: resolve(root, file), line: Number(row), column: Number(column), code: Number(code), message });
      continue;
    }
    const global = GLOBAL.exec(line);
    if (global) errors.push({ file: undefined, line: 0, column: 0, code: Number(global[1]), message: global[2] as string });
  }
  return errors;
}

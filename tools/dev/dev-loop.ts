import { dirname, extname, relative, resolve, sep } from 'node:path';
import { type ContractPaths, readContracts } from '../../src/contract/project.js';
import { displayPath } from '../check/display-path.js';
import { checkValueExamples } from '../check/examples-check.js';
import { sameCode } from '../generate/same-code.js';
import { type FileWatch, watchFolders } from '../generate/watch-files.js';
import { writeTypes } from '../generate/write-types.js';
import { describeExit } from '../process/launch.js';
import { type ServerProcess, ServerStartError, type StagedServer, stageServer, startServer } from '../process/server.js';
import { type Breakage, explainExamples, explainLint, explainServerStart, explainTypecheck, explainTypeGeneration, formatTypecheckError } from './explain.js';
import { type LintResult, lintSpec } from './lint-spec.js';
import { describeBreakage, seconds } from './report.js';
import { securityLint } from './security-lint.js';
import { SpareServer } from './spare-server.js';
import { Typecheck, type TypecheckError } from './typecheck.js';

export interface DevLoopOptions {
  root: string;
  paths: ContractPaths;
  /** The server's environment on top of this process's (PORT, LOG_LEVEL, ...); `undefined` removes a variable. */
  serverEnv: Record<string, string | undefined>;
  /** Prints one line of the loop's own report. */
  say: (line: string) => void;
  /** Passes on what the server writes. */
  forward: (text: string) => void;
}

type Cause = 'spec' | 'source';

/** The result of the latest type generation, which runs at once on each save. */
type TypesOutcome = { ok: true; summary: string } | { ok: false; breakage: Breakage };

interface Run {
  cause: Cause;
  changed: string[];
  /** When the first file event of the save arrived (performance.now()). */
  savedAt: number;
}

const SPEC_FILES = new Set(['.yaml', '.yml', '.json']);
const SOURCE_FILES = new Set(['.ts', '.mts', '.cts', '.tsx', '.json']);

/**
 * `npm run dev`: on a spec save, lint it, check its header and parameter examples,
 * regenerate the types, typecheck and restart the server; on a source save,
 * typecheck and restart. Lint, examples and typecheck run side by side (the
 * typecheck as soon as the types are written); Spectral's security lint runs once
 * they are done and reports without holding the server back. When a step fails it says which,
 * where and what to do, and leaves the last good server running. One run at a time:
 * a save made during a run stops it (its lint process, its typecheck at the next
 * file) and the next run takes every save since.
 */
export class DevLoop {
  readonly #options: DevLoopOptions;
  readonly #typecheck: Typecheck;
  readonly #specFolder: string;
  readonly #sourceFolder: string;
  #watch: FileWatch | undefined;
  #server: { process: ServerProcess; startedAt: Date } | undefined;
  #running: Promise<void> | undefined;
  /** The next server, started held while a save is checked (`#stageServer`); stopped if the loop stops first. */
  #staged: StagedServer | undefined;
  /** The server's code loaded, waiting between saves to become the next server (`spare-server.ts`). */
  readonly #spare: SpareServer;
  #types: Promise<TypesOutcome> = Promise.resolve({ ok: true, summary: 'types unchanged' });
  /** Whether a type generation since the last run wrote a different file. */
  #typesChanged = false;
  /** Whether one wrote more than a change of comments (`sameCode`), so the typecheck's last verdict is stale. */
  #typesCodeChanged = false;
  /**
   * The errors in the server's files the last finished typecheck found, while they still stand: forgotten on a save in
   * `src/` or new types that differ in more than comments. A save of the spec's prose then needs no typecheck.
   */
  #verdict: TypecheckError[] | undefined;
  #next: Run | undefined;
  /** Aborted when a newer save makes the run in flight stale: its lint stops, its typecheck stops at the next file. */
  #currentRun: AbortController | undefined;
  #stopping = false;
  /** Aborted on stop: ends the lint process of a run in flight. */
  readonly #stopped = new AbortController();

  constructor(options: DevLoopOptions) {
    this.#options = options;
    this.#specFolder = dirname(options.paths.spec);
    this.#sourceFolder = resolve(options.root, 'src');
    // The server's own files first (the build's config: src/, generated/): it restarts on their verdict while the
    // tests and tools are still checked.
    this.#typecheck = new Typecheck(options.root, { server: 'tsconfig.build.json', all: 'tsconfig.json' });
    this.#spare = new SpareServer(this.#serverOptions());
  }

  /** Starts the server, watches the spec's folder and `src/`, then checks everything once. */
  async start(): Promise<void> {
    const { say } = this.#options;
    this.#watch = await watchFolders([this.#specFolder, this.#sourceFolder], (changed, firstEventAt) => this.#queue(changed, firstEventAt));
    say(`watching ${displayPath(this.#specFolder)}/ and ${displayPath(this.#sourceFolder)}/; Ctrl-C stops`);
    // The first run starts the server at once, then checks everything: it warms the typechecker (the slow part) and tells about anything already broken.
    this.#regenerateTypes();
    await this.#enqueue({ cause: 'spec', changed: [], savedAt: performance.now() });
    say('ready: waiting for saves');
  }

  /** Stops watching, the commands in flight and the server's process group. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#watch?.close();
    this.#stopped.abort();
    await this.#typecheck.close();
    await this.#spare.close();
    if (this.#staged) this.#discard(this.#staged);
    const server = this.#server;
    this.#server = undefined;
    await server?.process.stop({ graceMs: 5_000 });
  }

  #queue(changed: string[], savedAt: number): void {
    const spec = changed.filter((file) => isUnder(file, this.#specFolder) && SPEC_FILES.has(extname(file)));
    const source = changed.filter((file) => isUnder(file, this.#sourceFolder) && SOURCE_FILES.has(extname(file)));
    if (spec.length + source.length === 0) return;
    // The spare loaded the code as it was, and the typecheck's verdict was about it: a source save makes both stale.
    if (source.length > 0) {
      this.#spare.discard();
      this.#verdict = undefined;
    }
    // Any check in flight (a run's, or the tests' and tools' after a restart) is stale now: it stops at its next file.
    this.#typecheck.cancel();
    // So is the last run's security lint, if it is still going: its seconds of CPU would slow this save's checks.
    if (!this.#running) this.#currentRun?.abort();
    // Types are written at once, not behind a typecheck in progress: the editor should see them within the second.
    if (spec.length > 0) this.#regenerateTypes(savedAt);
    void this.#enqueue({ cause: spec.length > 0 ? 'spec' : 'source', changed: [...spec, ...source], savedAt });
  }

  async #enqueue(run: Run): Promise<void> {
    if (this.#running) {
      // The run in flight checks files that changed since: stop it, and let the next one take everything.
      if (run.changed.length > 0) this.#currentRun?.abort();
      // A spec change includes everything a source change does.
      const queued = this.#next;
      this.#next = queued
        ? {
            cause: queued.cause === 'spec' || run.cause === 'spec' ? 'spec' : 'source',
            changed: [...new Set([...queued.changed, ...run.changed])],
            savedAt: queued.savedAt,
          }
        : run;
      return this.#running;
    }
    this.#running = (async () => {
      let current: Run | undefined = run;
      while (current && !this.#stopping) {
        try {
          await this.#runOnce(current);
          // Between saves, the next one's server loads its code (after a source save too, once it is checked).
          if (!this.#next) this.#spare.fill();
        } catch (error) {
          // Stopping ends the typecheck thread and the lint process under a run; anything else is a bug worth showing.
          if (!this.#stopping) this.#options.say(`the loop failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        }
        current = this.#next;
        this.#next = undefined;
      }
      this.#running = undefined;
    })();
    return this.#running;
  }

  async #runOnce(run: Run): Promise<void> {
    const { say, paths } = this.#options;
    const initial = run.changed.length === 0;
    const controller = new AbortController();
    this.#currentRun = controller;
    const stale = () => controller.signal.aborted || this.#stopping;
    // The first run warms the checker while the server starts: the first save then finds it warm.
    const warming = initial ? this.#typecheck.check() : undefined;
    if (initial) await this.#startServer('started');
    else say(`${run.changed.map((file) => displayPath(file)).join(', ')} changed`);
    const started = performance.now();
    const lintSignal = AbortSignal.any([this.#stopped.signal, controller.signal]);
    // What passed, in the order the steps are meant: lint, examples, types, typecheck.
    const passed: Record<'lint' | 'examples' | 'types' | 'typecheck', string | undefined> = {
      lint: undefined,
      examples: undefined,
      types: undefined,
      typecheck: undefined,
    };
    const broken: Breakage[] = [];
    let typesChanged = false;
    let typesFailed = false;

    let lint: Promise<{ result: LintResult; ms: number }> | undefined;
    if (run.cause === 'spec') {
      const lintStarted = performance.now();
      // Lint runs in its own process while the types are made and checked here, so none waits for another.
      lint = lintSpec(this.#apisToLint(run.changed), lintSignal).then((result) => ({ result, ms: performance.now() - lintStarted }));
      const types = await this.#types;
      typesChanged = this.#typesChanged;
      this.#typesChanged = false;
      if (this.#typesCodeChanged) this.#verdict = undefined;
      this.#typesCodeChanged = false;
      if (types.ok) passed.types = types.summary;
      else {
        typesFailed = true;
        broken.push(types.breakage);
      }
    }

    // The next server starts now, held before it listens, while the checks run: it is released once they pass.
    const staged = !initial && !typesFailed ? this.#stageServer() : undefined;
    const discardStaged = () => {
      if (staged) this.#discard(staged);
    };

    if (!typesFailed) {
      // Nothing the compiler reads changed since its last verdict (the types changed in comments only, or not at all): it stands.
      const standing = initial ? undefined : this.#verdict;
      const typecheckStarted = performance.now();
      const typecheck = standing ? undefined : (warming ?? this.#typecheck.check());
      if (run.cause === 'spec') {
        const examples = checkValueExamples(paths.spec);
        if (examples.ok) passed.examples = 'examples ok';
        else broken.push(explainExamples(examples.problems));
      }
      // The server's files (src/, generated/) are checked first; the rest (tests, tools) is said when done, without holding it back.
      const errors = standing ?? (await typecheck?.first);
      if (errors === undefined || stale()) {
        discardStaged();
        return this.#superseded(lint);
      }
      this.#verdict = errors;
      const blocking = errors.filter((error) => this.#blocks(error));
      if (blocking.length > 0) broken.push(explainTypecheck(blocking, run.cause));
      else
        passed.typecheck = standing
          ? 'typecheck of src/ ok (no code changed since it last ran)'
          : `typecheck of src/ ok in ${seconds(performance.now() - typecheckStarted)}`;
      if (typecheck) this.#reportElsewhere(typecheck.all, controller.signal);
    }

    if (lint) {
      const { result, ms } = await lint;
      if (stale()) {
        discardStaged();
        return this.#superseded();
      }
      if (result.ok) passed.lint = `lint ok in ${seconds(ms)}`;
      // A spec that does not parse fails lint and type generation alike; one report is enough.
      else if (!typesFailed) broken.unshift(explainLint(result.problems));
    }

    // Spectral's seconds of CPU start once the blocking steps are done, so they never slow the way to a served save.
    const securityLintAfter = run.cause === 'spec' && !initial && !typesFailed;
    const summary = Object.values(passed).filter((entry) => entry !== undefined);
    if (summary.length > 0) say(summary.join(' · '));
    if (broken.length > 0) {
      discardStaged();
      for (const breakage of broken) for (const line of describeBreakage(breakage)) say(line);
      const server = this.#server;
      say(
        server
          ? `not restarted: the last good server is still running at ${server.process.url} (started ${server.startedAt.toLocaleTimeString()})`
          : 'no server is running; it starts on the next save that passes',
      );
      if (securityLintAfter) this.#securityLint(lintSignal);
      return;
    }
    // The first check restarts only when it found the committed types stale.
    const restart = !initial || typesChanged;
    if (!restart) discardStaged();
    if (restart && !(await this.#startServer('restarted', staged))) return;
    say(`all checks pass${restart ? ', server restarted' : ''} (${seconds(performance.now() - started)} in all)`);
    if (securityLintAfter) this.#securityLint(lintSignal);
  }

  /**
   * The APIs of `redocly.yaml` whose spec was saved, for Redocly to lint those alone (each is a third of a second of
   * CPU); every one (`[]`) on the first run, or when a saved file is not a contract's own (a fragment they may share).
   */
  #apisToLint(changed: readonly string[]): string[] {
    const contracts = readContracts(this.#options.root);
    const saved = changed.filter((file) => isUnder(file, this.#specFolder));
    const chosen = contracts.filter((contract) => saved.includes(contract.spec));
    return saved.length > 0 && saved.every((file) => chosen.some((contract) => contract.spec === file)) ? chosen.map((contract) => contract.name) : [];
  }

  /** Whether a type error holds the server back: one in the code it runs (`src/`, `generated/`), or a global one. */
  #blocks(error: TypecheckError): boolean {
    return error.file === undefined || isUnder(error.file, this.#sourceFolder) || isUnder(error.file, dirname(this.#options.paths.types));
  }

  /** The type errors outside the server's code (tests, tools), said once the whole check is done, unless a newer save made it stale. */
  #reportElsewhere(all: Promise<TypecheckError[] | undefined>, signal: AbortSignal): void {
    const { say } = this.#options;
    void all.then(
      (errors) => {
        const elsewhere = (errors ?? []).filter((error) => !this.#blocks(error));
        if (elsewhere.length === 0 || signal.aborted || this.#stopping) return;
        say(`typecheck: ${elsewhere.length} error${elsewhere.length === 1 ? '' : 's'} outside src/ (not holding the server back):`);
        for (const error of elsewhere.slice(0, 3)) say(`  ${formatTypecheckError(error)}`);
      },
      () => undefined,
    );
  }

  /** Says that a newer save made this run stale; the next run checks everything since. */
  async #superseded(lint?: Promise<unknown>): Promise<void> {
    await lint?.catch(() => undefined);
    if (!this.#stopping) this.#options.say('a newer save came in: this check stopped, the next one takes it all');
  }

  /**
   * Spectral's OWASP rules on the saved spec, beside the other steps: they take seconds, so their findings
   * are said when they come and do not hold the server back (`npm run check` fails on them).
   */
  #securityLint(signal: AbortSignal): void {
    const { say, paths } = this.#options;
    const started = performance.now();
    void securityLint(paths.spec, signal).then(
      (findings) => {
        if (findings === undefined || signal.aborted || this.#stopping) return;
        if (findings.length === 0) {
          say(`security lint (Spectral, OWASP) ok in ${seconds(performance.now() - started)}`);
          return;
        }
        say(
          `security lint (Spectral, OWASP): ${findings.length} finding${findings.length === 1 ? '' : 's'}, not holding the server back (npm run check fails on them):`,
        );
        for (const finding of findings.slice(0, 5)) say(`  ${finding.location} ${finding.code}: ${finding.message}`);
      },
      (error: unknown) => say(`security lint (Spectral, OWASP) did not run: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  /** Regenerates the types now, after any generation still in progress; `#types` holds the outcome. */
  #regenerateTypes(savedAt?: number): void {
    const { paths } = this.#options;
    this.#types = this.#types.then(async (): Promise<TypesOutcome> => {
      const started = performance.now();
      try {
        const { changed, previous, types } = await writeTypes(paths);
        if (!changed) return { ok: true, summary: 'types unchanged' };
        this.#typesChanged = true;
        if (previous === undefined || !sameCode(previous, types)) this.#typesCodeChanged = true;
        const now = performance.now();
        return {
          ok: true,
          summary: `types regenerated in ${seconds(now - started)}${savedAt === undefined ? '' : ` (${seconds(now - savedAt)} after the save)`}`,
        };
      } catch (error) {
        return { ok: false, breakage: explainTypeGeneration(error, paths.spec) };
      }
    });
  }

  /** The next server, held before it listens: the spare when one waits, else one started now; see `#startServer`. */
  #stageServer(): StagedServer {
    this.#staged = this.#spare.take() ?? stageServer(this.#serverOptions());
    return this.#staged;
  }

  /** The loop's servers: its environment, their output passed on as it comes, the last 64 KiB kept for the report when one does not start. */
  #serverOptions() {
    const { serverEnv, forward } = this.#options;
    return { env: serverEnv, onOutput: forward, maxOutputChars: 1 << 16 };
  }

  /** Stops a staged server that will not be released. */
  #discard(staged: StagedServer): void {
    if (this.#staged === staged) this.#staged = undefined;
    void staged.discard();
  }

  /**
   * Replaces the running server, if any, with a new one; false when it did not come up. A staged server (started
   * held while the save was checked) is released the moment the last one has stopped; one that ended before it
   * was ready leaves the last server running. Without one, the new server is started here.
   */
  async #startServer(verb: string, staged?: StagedServer): Promise<boolean> {
    const { say } = this.#options;
    const started = performance.now();
    const previous = this.#server;
    if (staged && !(await staged.ready) && previous) {
      this.#staged = undefined;
      // The new code does not start: say why, and keep the last good server.
      await this.#reportStartFailure(staged.release(), `not restarted: the last good server is still running at ${previous.process.url}`);
      return false;
    }
    // Forget it before stopping it, so its exit is not taken for a crash.
    this.#server = undefined;
    await previous?.process.stop({ graceMs: 5_000 });
    if (this.#stopping) return false;
    if (this.#staged === staged) this.#staged = undefined;
    const starting = staged ? staged.release() : startServer(this.#serverOptions());
    const server = await this.#reportStartFailure(starting, 'no server is running; it starts on the next save that passes');
    if (!server) return false;
    this.#server = { process: server, startedAt: new Date() };
    const loaded = staged?.preloaded ? ', its code loaded before the save' : '';
    say(`server ${verb} in ${seconds(performance.now() - started)} (pid ${server.pid}${loaded}): ${server.url}`);
    void server.exited.then((exit) => {
      if (this.#server?.process === server && !this.#stopping) {
        this.#server = undefined;
        say(`the server stopped by itself (${describeExit(exit)}); it starts again on the next save that passes`);
      }
    });
    return true;
  }

  /** The server once it listens; or undefined, having said why it did not start and `then`. */
  async #reportStartFailure(starting: Promise<ServerProcess>, then: string): Promise<ServerProcess | undefined> {
    const { say } = this.#options;
    try {
      return await starting;
    } catch (error) {
      const [reason, output] = error instanceof ServerStartError ? [error.reason, error.output] : [error instanceof Error ? error.message : String(error), ''];
      for (const line of describeBreakage(explainServerStart(reason, output))) say(line);
      say(then);
      return undefined;
    }
  }
}

function isUnder(file: string, folder: string): boolean {
  const fromFolder = relative(folder, file);
  return fromFolder !== '' && !fromFolder.startsWith(`..${sep}`) && fromFolder !== '..';
}

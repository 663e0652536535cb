/**
 * `npm run bench:devloop`: how long the everyday commands take. Median (min-max) of
 * several runs of `npm run lint`, `generate`, `typecheck` and `check` (warm: the specs unchanged
 * since the last pass; and cold: without the typecheck's incremental state or the pass cache), of check's own tools run bare one after another (the
 * baseline its ratio is taken against), of `npm run dev` from a spec save to the new types on disk and to the new
 * server listening (`--only-dev` measures these alone), and of
 * `npm run mock` and `npm start` from spawn to their first 200 on the sample request.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { isMap, isScalar, parseDocument } from 'yaml';
import { ExitCode, exitCodeFor, parseOrExit } from '../../src/cli/exit.js';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { projectRoot } from '../../src/contract/project.js';
import { HTTP_METHODS } from '../../src/contract/spec.js';
import { checkSteps, readScripts, runChecks } from '../check/run-checks.js';
import { describeExit, type LaunchedProcess, launch } from '../process/launch.js';
import { copyProject } from '../process/project-copy.js';
import { waitForHttp, waitForOutput } from '../process/ready.js';
import { runCommand } from '../process/run-command.js';
import { REQUEST_BODY, requestHeaders } from './lib/fixture.js';
import { endProgress, progress } from './lib/progress.js';
import { prepareProjectDatabase } from './lib/project.js';
import { resultsPath } from './lib/results.js';
import { median } from './lib/stats.js';

interface Step {
  name: string;
  /** One timed run, in milliseconds; throws when the command fails. */
  time(): Promise<number>;
  /** Ends what the step started for its runs (a process it keeps between them). */
  close?(): Promise<void>;
}

interface StepResult {
  name: string;
  runsMs: number[];
  medianMs: number;
  minMs: number;
  maxMs: number;
  failure?: string;
}

const program = new Command('bench:devloop')
  .description('Median duration of lint, generate, typecheck, check, and of mock and server start to first 200')
  .option(
    '--runs <n>',
    'runs per step',
    (value) => {
      const runs = Number(value);
      if (!Number.isInteger(runs) || runs < 1) throw new InvalidArgumentError('--runs must be a whole number >= 1');
      return runs;
    },
    3,
  )
  .option('--out <file>', 'where to write the JSON (default tools/bench/results/devloop-<time>.json)')
  .option('--only-dev', 'measure npm run dev alone (save to types, save to served)')
  .exitOverride()
  .showHelpAfterError();
const options = parseOrExit('bench:devloop', () => program.parse().opts<{ runs: number; out?: string; onlyDev?: boolean }>());

const HOST = '127.0.0.1';
const startedAt = new Date();
const workDirectory = mkdtempSync(join(tmpdir(), 'devloop-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function npmRun(script: string, env: Record<string, string> = {}): Step {
  return {
    name: `npm run ${script}`,
    async time() {
      const started = performance.now();
      const result = await runCommand([npm, 'run', '--silent', script], { timeoutMs: 300_000, env });
      const ms = performance.now() - started;
      if (result.code === 0) return ms;
      throw new Error(`${describeExit(result)}: ${`${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-5).join('\n')}`);
    },
  };
}

/** `npm run check` as on a fresh clone: without the typecheck's incremental state, and every step run (no pass cache). */
function coldCheck(): Step {
  const warm = npmRun('check', { CHECK_CACHE: 'off' });
  return {
    name: 'npm run check, cold',
    time() {
      rmSync(join(projectRoot, 'node_modules', '.cache', 'typecheck.tsbuildinfo'), { force: true });
      return warm.time();
    },
  };
}

/**
 * `npm run check` right after an edit to the server's code, the commonest loop: a new module in
 * `src/server/` (a new hash for `src/`, a new file for the typecheck and Biome), removed afterwards.
 */
function checkAfterCodeEdit(): Step {
  const warm = npmRun('check');
  const edit = join(projectRoot, 'src', 'server', 'devloop-edit.ts');
  let run = 0;
  return {
    name: 'npm run check, after a code edit',
    async time() {
      writeFileSync(edit, `/** Written and removed by bench:devloop. */\nexport const devloopEdit = ${++run};\n`);
      try {
        return await warm.time();
      } finally {
        rmSync(edit, { force: true });
      }
    },
  };
}

/**
 * `npm run check` right after an edit to the public API's spec that changes no type: a comment
 * appended to `openapi/openapi.yaml`, and the file put back afterwards, byte for byte.
 */
function checkAfterSpecEdit(): Step {
  const warm = npmRun('check');
  const spec = join(projectRoot, 'openapi', 'openapi.yaml');
  let run = 0;
  return {
    name: 'npm run check, after a spec edit',
    async time() {
      const original = readFileSync(spec);
      writeFileSync(spec, Buffer.concat([original, Buffer.from(`# bench:devloop edit ${++run}\n`)]));
      try {
        return await warm.time();
      } finally {
        writeFileSync(spec, original);
      }
    },
  };
}

/** Check's tools with nothing around them: each script's command, straight from a shell, one after another, warm. */
function bareTools(): Step {
  return {
    name: "check's tools, bare, in turn",
    async time() {
      const scripts = readScripts();
      let total = 0;
      for (const name of checkSteps(scripts)) {
        const [result] = await runChecks([name], scripts);
        total += (result?.seconds ?? 0) * 1000;
        if (!result?.ok) throw new Error(`${name} failed: ${result?.output.trim().split('\n').slice(-5).join('\n')}`);
      }
      return total;
    },
  };
}

/** The issue's target for `npm run check` on a quiet machine. */
const CHECK_TARGET_MS = 3_000;
/** The issue's target for `npm run dev`: the types regenerated within this of a spec save. */
const DEV_TYPES_TARGET_MS = 1_000;

const DEV_TYPES_STEP = 'npm run dev, spec save to types on disk';
const DEV_SERVED_STEP = 'npm run dev, spec save to the new server listening';
const DEV_SERVED_TYPE_STEP = 'npm run dev, save of a new type to the new server';
/** The issue's target for `npm run dev`: a save served within this, warm, on a quiet machine. */
const DEV_SERVED_TARGET_MS = 3_000;
/** Each run's save to "all checks pass, server restarted", taken by the same runs as DEV_TYPES_STEP. */
const servedMs: number[] = [];
/** Each run's second save, which adds a response header (a new type, so the typecheck runs), to the same line. */
const servedTypeMs: number[] = [];

/**
 * `npm run dev` from a save of the spec to the regenerated types on disk, which is what an editor waits
 * for. It runs in a throwaway copy of the project (the loop rewrites `generated/`), started once and kept
 * between runs; each run saves a new summary of an operation (the types carry it as a comment), times the
 * change of `generated/openapi.d.ts`, then waits for the loop to finish the run (lint, restart), and then saves a
 * new response header (a new type: lint, typecheck, restart), timed to the restart as well.
 */
function devTypesAfterSave(): Step {
  // `text`: the spec as the last save left it; each save changes it in one place only.
  let loop: { copy: ReturnType<typeof copyProject>; dev: LaunchedProcess; text: string } | undefined;
  let run = 0;
  return {
    name: DEV_TYPES_STEP,
    async time() {
      if (!loop) {
        const copy = copyProject('devloop-dev-');
        const original = readFileSync(join(copy.root, 'openapi', 'openapi.yaml'), 'utf8');
        const dev = launch([npm, 'run', '--silent', 'dev'], {
          cwd: copy.root,
          env: { PORT: '0', WEB_PORT: '0', HOST, DATABASE_PATH: ':memory:', LOG_LEVEL: 'warn' },
        });
        loop = { copy, dev, text: original };
        if (withSummarySaved(original, 0) === undefined)
          throw new Error('bench:devloop saves an edit of the summary of an operation in openapi/openapi.yaml, and no operation has one');
        await waitForOutput(dev, /ready: waiting for saves/, { timeoutMs: 120_000 });
      }
      const { copy, dev } = loop;
      const specFile = join(copy.root, 'openapi', 'openapi.yaml');
      const types = join(copy.root, 'generated', 'openapi.d.ts');
      const before = readFileSync(types, 'utf8');
      const mark = dev.stdout().length;
      const saved = performance.now();
      loop.text = withSummarySaved(loop.text, ++run) ?? loop.text;
      writeFileSync(specFile, loop.text);
      while (readFileSync(types, 'utf8') === before) await pause(saved, 30_000, 'the types did not change', dev);
      const ms = performance.now() - saved;
      // The next save only once this run is over, as a developer reads the verdict before saving again.
      while (!/all checks pass|not restarted/.test(dev.stdout().slice(mark))) await pause(saved, 90_000, 'the loop did not finish its run', dev);
      if (/all checks pass, server restarted/.test(dev.stdout().slice(mark))) servedMs.push(performance.now() - saved);
      // A summary changes the types in a comment only, and the loop then keeps the typecheck's last verdict: the
      // second save changes a type (a response header of its own), so the typecheck runs, as after most edits.
      const typeMark = dev.stdout().length;
      const typeSaved = performance.now();
      loop.text = withHeaderAdded(loop.text, run);
      writeFileSync(specFile, loop.text);
      while (!/all checks pass|not restarted/.test(dev.stdout().slice(typeMark))) await pause(typeSaved, 90_000, 'the loop did not finish its run', dev);
      if (/all checks pass, server restarted/.test(dev.stdout().slice(typeMark))) servedTypeMs.push(performance.now() - typeSaved);
      else throw new Error(`the save of a new response header did not restart the server:\n${dev.stdout().slice(typeMark)}`);
      return ms;
    },
    async close() {
      await loop?.dev.stop({ signal: 'SIGINT', graceMs: 5_000 });
      loop?.copy.remove();
    },
  };
}

/**
 * The spec with the summary of its first operation that has one edited for save `run` (the generated types carry
 * it as a comment), spliced into the text at the scalar's place, so the rest of the file stays as it was; undefined
 * when no operation has a summary. Written back double-quoted: JSON's quoting is YAML's too.
 */
function withSummarySaved(spec: string, run: number): string | undefined {
  const document = parseDocument(spec);
  const paths = document.get('paths');
  if (!isMap(paths)) return undefined;
  for (const { key } of paths.items)
    for (const method of HTTP_METHODS) {
      const summary = document.getIn(['paths', isScalar(key) ? key.value : key, method, 'summary'], true);
      if (!isScalar(summary) || !summary.range) continue;
      const [start, end] = summary.range;
      return `${spec.slice(0, start)}${JSON.stringify(`${String(summary.value)} (bench:devloop save ${run})`)}${spec.slice(end)}`;
    }
  return undefined;
}

/**
 * The spec with a response header of save `run`'s own (`X-Bench-Save-<run>`) on the first operation's first
 * answer: a new member of its headers' type, which nothing in the code reads, so the loop restarts after a typecheck.
 */
function withHeaderAdded(spec: string, run: number): string {
  const document = parseDocument(spec);
  const paths = document.get('paths');
  if (isMap(paths))
    for (const { key } of paths.items)
      for (const method of HTTP_METHODS) {
        const where = ['paths', isScalar(key) ? key.value : key, method, 'responses'];
        const responses = document.getIn(where, true);
        if (!isMap(responses)) continue;
        const first = responses.items[0]?.key;
        document.setIn([...where, isScalar(first) ? first.value : first, 'headers', `X-Bench-Save-${run}`], {
          description: 'Added by bench:devloop.',
          schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 100, example: run },
        });
        return document.toString();
      }
  throw new Error('bench:devloop adds a response header to the first operation in openapi/openapi.yaml, and there is none');
}

/** Waits a moment; throws, with the end of the process's output, once `timeoutMs` has passed since `since`. */
async function pause(since: number, timeoutMs: number, what: string, launched: LaunchedProcess): Promise<void> {
  if (performance.now() - since > timeoutMs) throw new Error(`${what} within ${timeoutMs / 1000} s of the save:\n${launched.outputTail(10)}`);
  await new Promise((resolve) => setTimeout(resolve, 2));
}

/** From spawning `npm <args>` to the first 200 on the sample request, then stopped. */
function startToFirst200(name: string, args: (port: number) => string[], headers: Record<string, string>, env: Record<string, string> = {}): Step {
  let run = 0;
  return {
    name,
    async time() {
      const port = await portToBindLater(HOST);
      const log = join(workDirectory, `${name.replaceAll(' ', '-')}-${++run}.log`);
      // Its own process group: stopping npm stops the shell, tsx and the server under it.
      const server = launch([npm, ...args(port)], { env: { ...env, PORT: String(port), WEB_PORT: '0', HOST }, output: { stdoutFile: log, stderrFile: log } });
      try {
        return await waitForHttp(
          server,
          { url: `http://${HOST}:${port}/`, method: 'POST', headers, body: REQUEST_BODY, status: 200 },
          { timeoutMs: 60_000, intervalMs: 10 },
        );
      } finally {
        await server.stop({ graceMs: 3_000 });
      }
    },
  };
}

async function main(): Promise<number> {
  progress('devloop: making a database with a key for the server');
  const project = await prepareProjectDatabase(workDirectory);
  const all: Step[] = [
    npmRun('lint'),
    npmRun('generate'),
    npmRun('typecheck'),
    bareTools(),
    npmRun('check'),
    checkAfterCodeEdit(),
    checkAfterSpecEdit(),
    coldCheck(),
    devTypesAfterSave(),
    startToFirst200('mock start to first 200', (port) => ['run', '--silent', 'mock', '--', '--port', String(port)], requestHeaders('tka_anything')),
    startToFirst200('server start to first 200', () => ['start', '--silent'], requestHeaders(project.key), {
      DATABASE_PATH: project.databasePath,
      LOG_LEVEL: 'warn',
    }),
  ];
  const steps = options.onlyDev ? all.filter((step) => step.name === DEV_TYPES_STEP) : all;

  const results: StepResult[] = [];
  for (const step of steps) {
    const runsMs: number[] = [];
    let failure: string | undefined;
    for (let run = 1; run <= options.runs && failure === undefined; run++) {
      progress(`devloop: ${step.name} (${run}/${options.runs})`);
      try {
        runsMs.push(await step.time());
      } catch (error) {
        failure = (error as Error).message;
      }
    }
    await step.close?.();
    const result: StepResult = { name: step.name, runsMs, medianMs: median(runsMs), minMs: Math.min(...runsMs), maxMs: Math.max(...runsMs) };
    if (failure !== undefined) result.failure = failure;
    results.push(result);
  }
  endProgress();
  for (const [name, runsMs] of [
    [DEV_SERVED_STEP, servedMs],
    [DEV_SERVED_TYPE_STEP, servedTypeMs],
  ] as const)
    results.push({ name, runsMs, medianMs: median(runsMs), minMs: Math.min(...runsMs), maxMs: Math.max(...runsMs) });

  const out = options.out ?? resultsPath('devloop', startedAt, '.json');
  mkdirSync(join(out, '..'), { recursive: true });
  const machine = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length };
  writeFileSync(out, `${JSON.stringify({ startedAt: startedAt.toISOString(), machine, runs: options.runs, steps: results }, null, 2)}\n`);

  console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; median of ${options.runs} run(s), wall time, nothing pinned`);
  console.log('');
  const width = Math.max(...results.map((result) => result.name.length));
  console.log(`${'step'.padEnd(width)}  ${'median s'.padStart(8)}  ${'min-max s'.padStart(11)}`);
  for (const result of results) {
    const seconds = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : '-');
    const range = `${seconds(result.minMs)}-${seconds(result.maxMs)}`;
    console.log(
      `${result.name.padEnd(width)}  ${seconds(result.medianMs).padStart(8)}  ${range.padStart(11)}${result.failure ? `  FAILED: ${result.failure}` : ''}`,
    );
  }
  const byName = new Map(results.map((result) => [result.name, result.medianMs]));
  const check = byName.get('npm run check') ?? Number.NaN;
  const bare = byName.get("check's tools, bare, in turn") ?? Number.NaN;
  console.log('');
  if (!options.onlyDev)
    console.log(`npm run check / its tools bare in turn: ${(check / bare).toFixed(2)}x (below 1: running the steps at once wins more than npm and tsx cost)`);
  for (const [label, ms] of [
    ['warm', check],
    ['after a code edit', byName.get('npm run check, after a code edit') ?? Number.NaN],
    ['after a spec edit', byName.get('npm run check, after a spec edit') ?? Number.NaN],
    ['cold', byName.get('npm run check, cold') ?? Number.NaN],
  ] as const)
    if (!options.onlyDev)
      console.log(
        `target: npm run check (${label}) <= ${CHECK_TARGET_MS / 1000} s on a quiet machine: ${(ms / 1000).toFixed(2)} s  ${ms <= CHECK_TARGET_MS ? 'PASS' : 'MISS'}`,
      );
  const devTypes = byName.get(DEV_TYPES_STEP) ?? Number.NaN;
  console.log(
    `target: npm run dev, spec save to types on disk <= ${DEV_TYPES_TARGET_MS / 1000} s: ${(devTypes / 1000).toFixed(2)} s  ${devTypes <= DEV_TYPES_TARGET_MS ? 'PASS' : 'MISS'}`,
  );
  for (const [label, step] of [
    ['a summary', DEV_SERVED_STEP],
    ['a new type', DEV_SERVED_TYPE_STEP],
  ] as const) {
    const served = byName.get(step) ?? Number.NaN;
    console.log(
      `target: npm run dev, spec save (${label}) to the new server <= ${DEV_SERVED_TARGET_MS / 1000} s warm: ${(served / 1000).toFixed(2)} s  ${served <= DEV_SERVED_TARGET_MS ? 'PASS' : 'MISS'}`,
    );
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')} (${cpus().length} cores)`,
  );
  console.log(`\nJSON: ${relative(process.cwd(), out)}`);
  return results.some((result) => result.failure !== undefined) ? ExitCode.failed : ExitCode.ok;
}

try {
  process.exitCode = await main();
} catch (error) {
  endProgress();
  process.exitCode = exitCodeFor('bench:devloop', error);
} finally {
  rmSync(workDirectory, { recursive: true, force: true });
}
process.exit();

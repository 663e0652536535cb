import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../process/run-command.js';
import { failuresOf, leadLines, whatFailed } from './failures.js';
import { type PassCache, passCache } from './pass-cache.js';

export interface CheckResult {
  name: string;
  ok: boolean;
  seconds: number;
  output: string;
  /** Not run: its inputs are those of its last pass (`pass-cache.ts`). */
  skipped?: boolean;
}

/** This package's npm scripts, by name. */
export function readScripts(root = projectRoot): Record<string, string> {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
}

/** The scripts `npm run check` runs: the arguments of its `check.ts`. */
export function checkSteps(scripts: Readonly<Record<string, string>> = readScripts()): string[] {
  return (scripts['check'] ?? '').split(/\s+/).filter((word) => word !== '' && scripts[word] !== undefined);
}

/**
 * What Biome and the typecheck read: the product, the tools, the tests, the generated types, every file at
 * the root that Biome checks (`*.ts`, `*.json`, `*.jsonc`), the `.gitignore` that tells Biome what to leave
 * out, and the lock file's tool versions (`tools/package.json` is under `tools`).
 */
const CODE = [
  'src',
  'tools',
  'test',
  'generated',
  'vitest.config.ts',
  'package.json',
  'package-lock.json',
  'biome.jsonc',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.client.json',
  '.gitignore',
];
/**
 * The steps whose tools keep no pass cache of their own, and their inputs: after an edit to a spec
 * alone, neither runs again. (`lint` and `check:contracts` keep their own, finer ones.) `npm run
 * typecheck` or `npm run check:code` on its own always runs.
 */
const CACHED_STEPS: Readonly<Record<string, readonly string[]>> = { 'check:code': CODE, typecheck: CODE };

/** The pass cache `npm run check` (and `npm run fix`, which runs its steps) keeps for step `name`, if it keeps one. */
export function stepCache(name: string): PassCache | undefined {
  const inputs = CACHED_STEPS[name];
  return inputs && passCache(`step-${name.replace(':', '-')}`, inputs, process.env, undefined, ['tools/bench/results']);
}

/**
 * Runs each named script's command line at once, as `npm run` would (in a shell, with
 * `node_modules/.bin` first on PATH: execa's `preferLocal`) but without npm's start-up, and resolves with every result in
 * the order given, failed or not. A script with a pass cache (`cacheFor`) whose inputs are those of
 * its last pass is not run, and is reported as skipped; one that passes records its pass.
 */
export async function runChecks(
  names: readonly string[],
  scripts: Readonly<Record<string, string>>,
  cwd = projectRoot,
  cacheFor: (name: string) => PassCache | undefined = () => undefined,
): Promise<CheckResult[]> {
  return Promise.all(
    names.map(async (name): Promise<CheckResult> => {
      const cache = cacheFor(name);
      if (cache?.unchanged) return { name, ok: true, seconds: 0, output: '', skipped: true };
      const started = performance.now();
      const result = await runCommand(['sh', '-c', scripts[name] ?? `echo 'no script named ${name}' >&2; exit 127`], {
        cwd,
        env: { FORCE_COLOR: '0' },
        preferLocal: true,
        timeoutMs: 300_000,
      });
      if (result.code === 0) cache?.recordPass();
      // Colours off: FORCE_COLOR stops most tools' but not the typecheck's (TypeScript 7 is pretty in a pipe too), and the report reads the words.
      const output = stripVTControlCharacters(result.stdout + result.stderr);
      return { name, ok: result.code === 0, seconds: (performance.now() - started) / 1000, output };
    }),
  );
}

/**
 * What failed in each failed step, each failure with its fix: errors before warnings, a root cause before what follows
 * from it (`failures.ts`). `check` cuts each step's at `limit` lines (its full output follows); `npm run fix` prints
 * them all, with what is left of each fix once it has run (`afterFix`).
 */
export function failureReport(results: readonly CheckResult[], options: { limit?: number; afterFix?: boolean } = {}): string[] {
  return results
    .filter((result) => !result.ok)
    .flatMap((result) => {
      const lines = leadLines(result.name, failuresOf(result.output, options), options.limit);
      return lines.length > 0 ? lines : [`FAILED ${result.name}: exit code not 0 (npm run ${result.name})`];
    });
}

/**
 * What failed and its fix first (at most a few lines per step), then one line per check with its
 * time and the verdict, then the output of each failed one with its failure lines at the top.
 */
export function formatChecks(results: readonly CheckResult[], totalSeconds: number): { stdout: string; stderr: string } {
  const failed = results.filter((result) => !result.ok);
  const lead = failureReport(results, { limit: 6 });
  const lines = results.map(
    (result) =>
      `${result.ok ? 'ok  ' : 'FAIL'}  ${result.name.padEnd(16)} ${result.skipped ? 'its inputs are unchanged since its last pass' : `${result.seconds.toFixed(1)} s`}`,
  );
  const verdict = failed.length
    ? `check: ${failed.length} of ${results.length} failed in ${totalSeconds.toFixed(1)} s (run one alone with npm run <name>)`
    : `check: all ${results.length} passed in ${totalSeconds.toFixed(1)} s`;
  return {
    stdout: `${[...(lead.length > 0 ? [...lead, ''] : []), ...lines, verdict].join('\n')}\n`,
    stderr: failed
      .map((result) => {
        const what = whatFailed(result.output);
        const said = new Set(what.map((line) => line.trim()));
        const rest = result.output
          .split('\n')
          .filter((line) => !said.has(line.trim()))
          .join('\n')
          .trim();
        return `\n── ${result.name} (npm run ${result.name}) failed:\n${[...what, ...(rest && what.length > 0 ? [''] : []), rest].join('\n').trim()}\n`;
      })
      .join(''),
  };
}

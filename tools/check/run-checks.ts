import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../process/run-command.js';
import type { PassCache } from './pass-cache.js';

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
      return { name, ok: result.code === 0, seconds: (performance.now() - started) / 1000, output: result.stdout + result.stderr };
    }),
  );
}

/** One line per check with its time, then the output of each failed one, then the verdict. */
export function formatChecks(results: readonly CheckResult[], totalSeconds: number): { stdout: string; stderr: string } {
  const failed = results.filter((result) => !result.ok);
  const lines = results.map(
    (result) =>
      `${result.ok ? 'ok  ' : 'FAIL'}  ${result.name.padEnd(16)} ${result.skipped ? 'its inputs are unchanged since its last pass' : `${result.seconds.toFixed(1)} s`}`,
  );
  const verdict = failed.length
    ? `check: ${failed.length} of ${results.length} failed in ${totalSeconds.toFixed(1)} s (run one alone with npm run <name>)`
    : `check: all ${results.length} passed in ${totalSeconds.toFixed(1)} s`;
  return {
    stdout: `${[...lines, verdict].join('\n')}\n`,
    stderr: failed.map((result) => `\n── ${result.name} (npm run ${result.name}) failed:\n${result.output.trimEnd()}\n`).join(''),
  };
}

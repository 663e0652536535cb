import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { MISSING_LIST_ROUTE } from '../fix/list-routes.js';
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

/**
 * What fixes a failure, by what its output says: the command when one exists, else where to look.
 * The first that matches a failed step's output is printed beside it, at the top of the report.
 */
const FIXES: ReadonlyArray<{ when: RegExp; fix: string }> = [
  {
    when: /does not parse|YAMLParseError|Nested mappings are not allowed|bad indentation|error parser /,
    fix: 'fix the YAML at the line named below (npm run lint names it)',
  },
  { when: /generated\/\S+ (?:is missing|differs from what)/, fix: 'npm run generate (or npm run fix, which also does the rest below)' },
  {
    when: /can break clients built against/,
    fix: "make the change compatible, or raise info.version's major and list what breaks in CHANGELOG.md (both ways are spelled out below)",
  },
  { when: /^copies: FAILED/m, fix: 'npm run fix (writes each copy marked "npm run fix writes it" below; those marked "by hand" are yours)' },
  { when: /Property '\w+' is missing in type .*HandlerMap/, fix: 'npm run fix (writes a stub of each missing handler), then write the handler' },
  {
    when: /headers: Record<"[^"]+"/,
    fix: 'return each header the spec now requires from the handler named below (headers: { ... }), or make it optional in the spec',
  },
  { when: MISSING_LIST_ROUTE, fix: "npm run fix (writes the new list operation's route into the client)" },
  { when: /Formatter would have printed|File content differs from formatting output/, fix: 'npm run format:fix' },
  { when: /in the code the samples import/, fix: 'fix the code named below first (npm run typecheck names it too); the samples are checked against it' },
  { when: /^samples: FAILED/m, fix: 'make each sample named below say what the spec says now' },
  { when: /^names: FAILED/m, fix: 'reword each place named below: the spec no longer has that name' },
  { when: /owasp:|redocly|spectral/i, fix: 'edit the spec at the place named below (npm run lint runs the linters alone)' },
];

/** The lines of a failed step's output that say what failed, before the rest (a passing check's lines, a tool's banner). */
export function whatFailed(output: string): string[] {
  const lines = output.split('\n');
  const failed: string[] = [];
  lines.forEach((line, index) => {
    // Biome: a diagnostic's place, then its message under `×` (an error; `!` is a warning, which does not fail).
    if (/^\S+(:\d+:\d+)? [\w/]+ .*━/.test(line)) {
      const message = lines.slice(index + 1, index + 4).find((next) => next.trim() !== '');
      if (message?.trim().startsWith('× ')) failed.push(`${line.replace(/\s*━+.*$/, '').trim()}: ${message.trim().slice(2)}`);
      return;
    }
    if (!/FAILED|error TS\d+|\b(warning|error) owasp:|^\S+:\d+:\d+ +(error|warning) |failed \(exit code|✖/.test(line) || /^\s*(ok|accepted)\b/.test(line))
      return;
    failed.push(line.trim());
    // The indented lines under a check's FAILED are its items (`  update docs/...`).
    if (!line.includes('FAILED')) return;
    for (const next of lines.slice(index + 1)) {
      if (!/^\s{2,}\S/.test(next) || /FAILED/.test(next)) break;
      // A change the gate accepted is not what failed: it stays in the full output below.
      if (/^\s*accepted:/.test(next)) continue;
      failed.push(`  ${next.trim()}`);
    }
  });
  // An error under its check's FAILED is often also printed on its own (a tsc line): once is enough.
  const seen = new Set<string>();
  return failed.filter((line) => !seen.has(line.trim()) && seen.add(line.trim()));
}

/** The fix for a failed step's output, if one is known: the fix of the failure it leads with, else the first its output calls for. */
export function fixFor(output: string, lead?: string): string | undefined {
  return (lead === undefined ? undefined : FIXES.find(({ when }) => when.test(lead)))?.fix ?? FIXES.find(({ when }) => when.test(output))?.fix;
}

/**
 * What failed and its fix first (at most a few lines per step), then one line per check with its
 * time and the verdict, then the output of each failed one with its failure lines at the top.
 */
export function formatChecks(results: readonly CheckResult[], totalSeconds: number): { stdout: string; stderr: string } {
  const failed = results.filter((result) => !result.ok);
  const lead = failed.flatMap((result) => {
    const what = whatFailed(result.output);
    const fix = fixFor(result.output, what[0]);
    return [
      `FAILED ${result.name}: ${
        what[0] ??
        result.output
          .split('\n')
          .find((line) => line.trim() !== '')
          ?.trim() ??
        `exit code not 0 (npm run ${result.name})`
      }`,
      ...what.slice(1, 6).map((line) => `  ${line}`),
      ...(what.length > 6 ? [`  ... and ${what.length - 6} more below`] : []),
      ...(fix ? [`  fix: ${fix}`] : []),
    ];
  });
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
        const rest = result.output
          .split('\n')
          .filter((line) => !what.includes(line.trim()))
          .join('\n')
          .trim();
        return `\n── ${result.name} (npm run ${result.name}) failed:\n${[...what, ...(rest && what.length > 0 ? [''] : []), rest].join('\n').trim()}\n`;
      })
      .join(''),
  };
}

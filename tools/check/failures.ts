/**
 * What a failed step of `npm run check` says failed, and the fix of each failure: read from the step's output, so
 * that `check` leads with them and `npm run fix` lists what it could not do. Each failure is a line that says what
 * failed (a Biome error, a compiler's error, a linter's finding, a check's `FAILED`) with the items under it.
 */
import { MISSING_LIST_ROUTE } from '../fix/list-routes.js';

interface Fix {
  when: RegExp;
  fix: string;
  /** What is left to do when `npm run fix`, which does `fix`, has run and this still fails. */
  afterFix?: string;
  /** Follows from another failure when both are there (types generated from a spec with a broken example): led with last. */
  knockOn?: true;
  /** Every other failure may follow from it (a spec that does not parse): led with first. */
  root?: true;
}

/**
 * What fixes a failure, by what it says: the command when one exists, else the edit and where. The first whose
 * `when` matches a failure is its fix. `npm run fix` is offered only for what `tools/fix/main.ts` does.
 */
const FIXES: readonly Fix[] = [
  {
    // The words of the YAML parsers the checks use (yaml's, Redocly's, Spectral's) for a spec that does not parse.
    when: /does not parse|YAMLParseError|Nested mappings are not allowed|bad indentation|deficient indentation|error parser |Failed to parse API description|[Mm]issed comma|must be sufficiently indented|at line \d+, column \d+:/,
    fix: 'fix the YAML at the line named above (npm run lint names it)',
    root: true,
  },
  {
    when: /header or parameter examples? in \S+ breaks? /,
    fix: 'change each example named above (or its schema) at its line: the mock serves it and clients read it',
  },
  {
    when: /generated\/\S+ (?:is missing|differs from what)/,
    fix: 'npm run generate (or npm run fix, which also does the rest below)',
    afterFix: 'fix what stops the types from being generated (the failures above; npm run generate says it alone)',
    knockOn: true,
  },
  {
    when: /can break clients built against/,
    fix: "make the change compatible, or raise info.version's major and list what breaks in CHANGELOG.md (both ways are spelled out below)",
    afterFix:
      "make the change compatible, or raise info.version's major and list what breaks in CHANGELOG.md, or accept each change with its reason (npm run check:contracts spells out each way)",
  },
  {
    when: /^copies: FAILED/m,
    fix: 'npm run fix (writes each copy marked "npm run fix writes it" above; those marked "by hand" are yours)',
    afterFix: 'reword each copy marked "by hand" above: it has no single value npm run fix could write',
  },
  {
    when: /Property '\w+' is missing in type .*HandlerMap/,
    fix: 'npm run fix (writes a stub of each missing handler), then write the handler',
    afterFix: 'add each handler named above where npm run fix could not write a stub (it says why above)',
  },
  {
    when: /headers: Record<"[^"]+"/,
    fix: 'return each header the spec now requires from the handler named above (headers: { ... }), or make it optional in the spec',
  },
  {
    when: MISSING_LIST_ROUTE,
    fix: "npm run fix (writes the new list operation's route into the client)",
    afterFix: "add the list operation's route named above to LIST_ROUTES in src/client/index.ts by hand",
  },
  {
    when: /Formatter would have printed|File content differs from formatting output/,
    fix: 'npm run format:fix (npm run fix runs the formatter too)',
    afterFix: 'fix the syntax Biome names in that file (npm run check:code): the formatter leaves a file it cannot parse',
  },
  {
    when: /in the code the samples import/,
    fix: 'fix the code named above first (npm run typecheck names it too); the samples are checked against it',
    knockOn: true,
  },
  { when: /^samples: FAILED/m, fix: 'make each sample named above say what the spec says now' },
  { when: /^names: FAILED/m, fix: 'reword each place named above: the spec no longer has that name' },
  {
    when: /stale exception: \.spectral\.yaml:\d+|update \.spectral\.yaml:\d+: the exception/,
    fix: 'update the stale exception in .spectral.yaml named above (point it at the place it meant, or remove it); it no longer excuses anything',
  },
  {
    when: /^\S+\.ya?ml:\d+:\d+ +(?:error|warning|info|hint) |owasp:|redocly|spectral/i,
    fix: 'edit the spec at the place named above (npm run lint runs the linters alone)',
  },
  { when: /error TS\d+/, fix: 'fix the code at the place named above (npm run typecheck runs the typecheck alone)' },
  {
    when: /^\S+:\d+:\d+ lint\//,
    fix: "fix the code at the place named above, or apply Biome's safe fix where it has one (npx biome check --write <file>; npm run lint:code runs the linter alone)",
  },
];

/** One failure: the line that says what failed, then the items under it (indented), and its fix if one is known. */
export interface Failure {
  lines: string[];
  fix?: string;
}

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
    if (
      !/FAILED|error TS\d+|\b(warning|error) owasp:|^\S+:\d+:\d+ +(error|warning|info|hint) |failed \(exit code|✖|Failed to parse API description/.test(line) ||
      /^\s*(ok|accepted)\b/.test(line) ||
      // A line of a code frame (Biome's, Redocly's) quotes the code, which may say anything.
      /[│|] /.test(line.slice(0, 16))
    )
      return;
    failed.push(line.trim());
    // The indented lines under a check's FAILED (`  update docs/...`), or under Redocly's "Failed to parse" (`  - deficient indentation ...`), are its items.
    if (!/FAILED|Failed to parse/.test(line)) return;
    for (const next of lines.slice(index + 1)) {
      if (next.trim() === '' && /Failed to parse/.test(line)) continue;
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

const isWarning = (line: string) => /^\S+:\d+:\d+ +(warning|info|hint) |\bwarning owasp:/.test(line);

/**
 * A failed step's failures, each with its fix (after `npm run fix` has run, what is left of it): errors before
 * warnings, and a failure that follows from another (the drift a broken example causes) after the one it follows from,
 * so that what is led with is the root cause. A step whose failures match no known fix is one failure: its first line.
 */
export function failuresOf(output: string, options: { afterFix?: boolean } = {}): Failure[] {
  const failures: Array<Failure & { rank: number }> = [];
  for (const line of whatFailed(output)) {
    const last = failures.at(-1);
    if (/^\s/.test(line) && last) last.lines.push(line);
    else failures.push({ lines: [line], rank: 0 });
  }
  // "redocly lint failed (exit code 1)" says no more than the findings above it.
  const summary = (failure: Failure) => /failed \(exit code \d+\)$/.test(failure.lines[0] ?? '');
  if (failures.some((failure) => !summary(failure))) failures.splice(0, failures.length, ...failures.filter((failure) => !summary(failure)));
  if (failures.length === 0) {
    const first = output.split('\n').find((line) => line.trim() !== '');
    return first === undefined ? [] : [{ lines: [first.trim()] }];
  }
  for (const failure of failures) {
    const known = FIXES.find(({ when }) => when.test(failure.lines.join('\n')));
    const fix = options.afterFix ? (known?.afterFix ?? known?.fix) : known?.fix;
    if (fix !== undefined) failure.fix = fix;
    failure.rank = (isWarning(failure.lines[0] ?? '') ? 3 : 0) + (known?.root ? 0 : known?.knockOn ? 2 : 1);
  }
  return failures.sort((a, b) => a.rank - b.rank).map(({ lines, fix }) => (fix === undefined ? { lines } : { lines, fix }));
}

/**
 * A failed step's report: `FAILED <step>: <what failed>`, the rest of its failures under it, each run of failures that
 * share a fix followed by it (`fix: ...`). With `limit`, at most that many failure lines, then how many more there
 * are and the fix of each failure left out, so no fix is lost to the cut.
 */
export function leadLines(step: string, failures: readonly Failure[], limit = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  const said = new Set<string>();
  const unsaid: string[] = [];
  let cut = 0;
  failures.forEach((failure, index) => {
    const room = Math.max(0, limit - (out.length - said.size));
    for (const line of failure.lines.slice(0, room)) out.push(out.length === 0 ? `FAILED ${step}: ${line}` : `  ${line}`);
    cut += Math.max(0, failure.lines.length - room);
    const { fix } = failure;
    if (fix === undefined || said.has(fix) || unsaid.includes(fix)) return;
    // Some of it cut: its fix goes after the count of what was cut.
    if (failure.lines.length > room) unsaid.push(fix);
    // A run of failures with one fix (three Spectral findings) is followed by it once.
    else if (failures[index + 1]?.fix !== fix) {
      out.push(`  fix: ${fix}`);
      said.add(fix);
    }
  });
  if (cut > 0) out.push(`  ... and ${cut} more below`, ...unsaid.map((fix) => `  fix: ${fix}`));
  return out;
}

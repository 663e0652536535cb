import { displayPath } from '../check/display-path.js';
import { MISSING_LIST_ROUTE } from '../fix/list-routes.js';
import type { LintProblem } from './lint-spec.js';
import type { TypecheckError } from './typecheck.js';

/** What broke in one step of the loop, in the few lines a developer reads. */
export interface Breakage {
  /** `lint`, `examples`, `types`, `typecheck`, `server`. */
  step: string;
  /** The first errors, each located (`file:line:col message`). */
  errors: string[];
  /** How many errors there were in all. */
  total: number;
  /** What to do about them, most specific first. */
  fixes: string[];
}

const SHOWN = 3;

export function explainLint(problems: LintProblem[]): Breakage {
  const first = problems[0];
  return {
    step: 'lint',
    errors: problems.slice(0, SHOWN).map((problem) => `${located(problem.location)}${problem.message} (${problem.ruleId})`),
    total: problems.length,
    fixes: [first ? `fix the spec${first.location ? ` at ${first.location}` : ''}: ${first.message}` : 'fix the spec: run `npm run lint` for the full report'],
  };
}

export function explainTypeGeneration(error: unknown, specPath: string): Breakage {
  const message = error instanceof Error ? error.message : String(error);
  return { step: 'types', errors: [message], total: 1, fixes: [`fix the spec: openapi-typescript cannot compile ${displayPath(specPath)}`] };
}

export function explainExamples(problems: string[]): Breakage {
  return {
    step: 'examples',
    errors: problems.slice(0, SHOWN),
    total: problems.length,
    fixes: ['fix the example (or its schema) at the line shown; `npm run check:examples` checks it again'],
  };
}

/**
 * Turns tsc's errors into fixes. The handler map is typed by the spec's operations,
 * so its errors mean an operation was added, renamed or removed in the spec.
 */
export function explainTypecheck(errors: TypecheckError[], cause: 'spec' | 'source'): Breakage {
  const fixes = new Set<string>();
  for (const error of errors) {
    const where = error.file ? displayPath(error.file) : 'the project';
    for (const operation of missingHandlers(error.message))
      fixes.add(
        `a handler for operation ${operation} is missing in ${where}: add it (its input and result types come from the regenerated types), or run npm run fix for a stub that answers 500 until you do`,
      );
    const list = MISSING_LIST_ROUTE.exec(error.message)?.[1];
    if (list) fixes.add(`the spec has a new list operation ${list}: paginate needs its route in ${where}; npm run fix writes it from the spec`);
    for (const headers of requiredHeaders(error.message))
      fixes.add(
        `the spec now requires ${headers} on this answer, which the server does not write itself: return ${headers.includes(' and ') ? 'them' : 'it'} from the handler at ${where}:${error.line} (headers: { ... }), or make ${headers.includes(' and ') ? 'them' : 'it'} optional in the spec`,
      );
    const extra = /'(\w+)' does not exist in type '(?:\w*Handlers|HandlerMap<[^']*>)'(?:\. Did you mean to write '(\w+)'\?)?/.exec(error.message);
    if (extra?.[2]) fixes.add(`operation ${extra[1]} is now ${extra[2]} in the spec: rename its handler in ${where}`);
    else if (extra?.[1]) fixes.add(`the spec has no operation ${extra[1]}: remove its handler from ${where}, or restore the operation in the spec`);
  }
  const first = errors[0];
  if (first && fixes.size === 0) {
    const at = first.file ? `${displayPath(first.file)}:${first.line}` : 'the project';
    fixes.add(cause === 'spec' ? `the code no longer follows the regenerated types: fix ${at} (or change the spec back)` : `fix ${at}`);
  }
  return { step: 'typecheck', errors: errors.slice(0, SHOWN).map(formatTypecheckError), total: errors.length, fixes: [...fixes] };
}

export function explainServerStart(reason: string, output: string): Breakage {
  const lines = output.trim().split('\n').filter(Boolean);
  const shown = uncaughtError(lines) ?? lines.slice(-SHOWN);
  return { step: 'server', errors: [reason, ...shown], total: 1 + shown.length, fixes: ['the server stops at startup: read its output above, fix, and save'] };
}

/**
 * From Node's report of an uncaught error (the source line, the error, its stack, the Node version), the error
 * and the first frame in the project's own code: what the tail of that report (frames of Node's loader) hides.
 */
function uncaughtError(lines: string[]): string[] | undefined {
  const at = lines.findIndex((line) => /^\w*(?:Error|Exception)(?: \[\w+\])?: /.test(line));
  if (at === -1) return undefined;
  const frame = lines.slice(at + 1).find((line) => /^\s+at .*\/(src|generated)\/[^)]*:\d+:\d+\)?$/.test(line) && !line.includes('/node_modules/'));
  return [lines[at] as string, ...(frame ? [frame.trim().replace(/\(?(?:file:\/\/)?\/\S*?\/((?:src|generated)\/[^)]*)\)?$/, '$1')] : [])];
}

export function formatTypecheckError(error: TypecheckError): string {
  const where = error.file ? `${displayPath(error.file)}:${error.line}:${error.column} ` : '';
  return `${where}${shorten(error.message)} (TS${error.code})`;
}

/** The headers a handler's result lacks, as the result type asks for them (`headers: Record<"cache-control", string>`). */
function requiredHeaders(message: string): string[] {
  return [...message.matchAll(/headers: Record<((?:"[^"]+"(?: \| )?)+), string>/g)].map(([, names = '']) =>
    names.replaceAll('"', '').split(' | ').join(' and '),
  );
}

/** Operation ids the handler map lacks: TS2741 names one, TS2739/2740 list several. */
function missingHandlers(message: string): string[] {
  const one = /^Property '(\w+)' is missing in type .* but required in type '(?:\w*Handlers|HandlerMap<[^']*>)'/s.exec(message)?.[1];
  if (one) return [one];
  const several = /is missing the following properties from type '(?:\w*Handlers|HandlerMap<[^']*>)': (.+)$/s.exec(message)?.[1];
  if (several)
    return several
      .replace(/,? and \d+ more\.?$/, '')
      .split(/,\s*/)
      .map((name) => name.replace(/\.$/, '').trim());
  return [];
}

function located(location: string): string {
  return location ? `${location} ` : '';
}

/** tsc repeats whole object types in its messages; the first 200 characters say what is wrong. */
function shorten(message: string): string {
  return message.length > 200 ? `${message.slice(0, 197)}...` : message;
}

import { binCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';

/** One problem Redocly reports, located in the spec. */
export interface LintProblem {
  ruleId: string;
  message: string;
  /** `openapi/openapi.yaml:122:7`, as Redocly names the file. */
  location: string;
}

export interface LintResult {
  ok: boolean;
  problems: LintProblem[];
}

interface RedoclyReport {
  problems: Array<{
    ruleId: string;
    message: string;
    location?: Array<{ source?: { ref?: string }; start?: { line: number; col: number } }>;
  }>;
}

/**
 * Redocly's half of `npm run lint` (`redocly.yaml`), read from its JSON report; warnings fail it too. Spectral's OWASP
 * half is left to `npm run lint` and `check`: it takes seconds, too long for a lint on every save.
 */
export async function lintSpec(cancelSignal?: AbortSignal): Promise<LintResult> {
  const output = await runCommand(binCommand('redocly', ['lint', '--config', 'redocly.yaml', '--format', 'json']), {
    timeoutMs: 120_000,
    ...(cancelSignal && { cancelSignal }),
  });
  let reports: RedoclyReport[];
  try {
    reports = parseReports(output.stdout);
  } catch {
    reports = [];
  }
  if (reports.length === 0) {
    // No JSON when the file does not parse: Redocly says why on stderr.
    return { ok: output.code === 0, problems: output.code === 0 ? [] : [{ ruleId: 'parse', message: parseFailure(output.stderr), location: '' }] };
  }
  const problems = reports
    .flatMap((report) => report.problems)
    .map((problem) => {
      const where = problem.location?.[0];
      const location = where?.source?.ref ? `${where.source.ref}${where.start ? `:${where.start.line}:${where.start.col}` : ''}` : '';
      return { ruleId: problem.ruleId, message: problem.message, location };
    });
  return { ok: output.code === 0 && problems.length === 0, problems };
}

/**
 * Redocly prints one JSON report per api of `redocly.yaml` (the public API and the
 * account API), one after the other: `{...}{...}`. Reads them all.
 */
function parseReports(stdout: string): RedoclyReport[] {
  const reports: RedoclyReport[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < stdout.length; index++) {
    const char = stdout[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') {
      if (depth++ === 0) start = index;
    } else if (char === '}' && --depth === 0) reports.push(JSON.parse(stdout.slice(start, index + 1)) as RedoclyReport);
  }
  return reports;
}

/** The reason from Redocly's "Failed to parse" output, without its banners. */
function parseFailure(stderr: string): string {
  const reasons = stderr
    .split('\n')
    .filter((line) => line.trimStart().startsWith('- '))
    .map((line) => line.trim().slice(2));
  return reasons.join('; ') || stderr.trim().split('\n').at(-1) || 'redocly lint failed without a report';
}

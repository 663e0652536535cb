import { parseReports, runRedoclyLint } from '../check/redocly-lint.js';

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

/**
 * Redocly's half of `npm run lint` (`redocly.yaml`) for the APIs named (every one when none is), read from its JSON
 * report; warnings fail it too. Spectral's OWASP
 * half is left to `npm run lint` and `check`: it takes seconds, too long for a lint on every save.
 */
export async function lintSpec(apis: readonly string[], cancelSignal?: AbortSignal): Promise<LintResult> {
  const output = await runRedoclyLint(apis, cancelSignal ? { cancelSignal } : {});
  let reports: ReturnType<typeof parseReports>;
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

/** The reason from Redocly's "Failed to parse" output, without its banners. */
function parseFailure(stderr: string): string {
  const reasons = stderr
    .split('\n')
    .filter((line) => line.trimStart().startsWith('- '))
    .map((line) => line.trim().slice(2));
  return reasons.join('; ') || stderr.trim().split('\n').at(-1) || 'redocly lint failed without a report';
}

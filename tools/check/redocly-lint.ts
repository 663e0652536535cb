/**
 * Redocly's half of `npm run lint`, read from its JSON report rather than its code frames: each problem becomes one
 * line as a compiler prints it (`file:line:column severity rule message`, as Spectral's are), errors first, so that
 * `npm run check` and `npm run fix` lead with the place and the rule instead of "redocly lint failed (exit code 1)".
 */
import { binCommand } from '../process/commands.js';
import { type CommandResult, runCommand } from '../process/run-command.js';
import { bySeverity, findingLine, type SpectralFinding } from './spectral.js';

export interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: Array<{ source?: { ref?: string }; pointer?: string; start?: { line: number; col: number } }>;
}

/** A Redocly problem in the shape of a Spectral finding, so both linters print alike. */
export type RedoclyFinding = Omit<SpectralFinding, 'path'> & { pointer: string };

/**
 * Redocly prints one JSON report per api it lints, one after the other (`{...}{...}`); this splits them where the
 * braces outside strings balance. Text that is not such a report (none when the spec does not parse) yields none.
 */
export function parseReports(stdout: string): Array<{ problems: RedoclyProblem[] }> {
  const reports: Array<{ problems: RedoclyProblem[] }> = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < stdout.length; index++) {
    const char = stdout[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = depth > 0;
    else if (char === '{' && depth++ === 0) start = index;
    else if (char === '}' && depth > 0 && --depth === 0) reports.push(JSON.parse(stdout.slice(start, index + 1)) as { problems: RedoclyProblem[] });
  }
  return reports;
}

/** The problems of Redocly's reports as findings, errors first. */
export function redoclyFindings(stdout: string): RedoclyFinding[] {
  return bySeverity(
    parseReports(stdout)
      .flatMap((report) => report.problems)
      .map((problem): RedoclyFinding => {
        const where = problem.location?.[0];
        return {
          file: where?.source?.ref ?? '',
          line: where?.start?.line ?? 0,
          column: where?.start?.col ?? 0,
          severity: problem.severity === 'warn' || problem.severity === 'warning' ? 'warning' : problem.severity === 'error' ? 'error' : 'info',
          code: problem.ruleId,
          message: problem.message,
          pointer: where?.pointer ?? '',
        };
      }),
  );
}

/**
 * Lints the named apis of `redocly.yaml` with its rules. Its output is one line per problem, errors first, or, when
 * Redocly wrote no report (a spec that does not parse), what it said on stderr without its banners.
 */
export async function lintWithRedocly(apis: readonly string[]): Promise<CommandResult> {
  const result = await runRedoclyLint(apis);
  let findings: RedoclyFinding[] | undefined;
  try {
    findings = parseReports(result.stdout).length > 0 ? redoclyFindings(result.stdout) : undefined;
  } catch {
    findings = undefined;
  }
  if (findings === undefined) return { ...result, stderr: withoutBanners(result.stderr) };
  const stdout =
    findings.length === 0
      ? `redocly: ${apis.join(', ')}: no problems\n`
      : `${findings.map(findingLine).join('\n')}\nredocly: ${findings.length} problem${findings.length === 1 ? '' : 's'}\n`;
  // A warning fails the lint as an error does (redocly.yaml's rules are meant to be met, not noted).
  return { ...result, code: findings.length > 0 ? 1 : result.code, stdout, stderr: '' };
}

/**
 * Redocly's CLI linting the named APIs of `redocly.yaml` (all of them when none is named), with each API's rules, its
 * JSON report on stdout: `npm run lint`'s and `npm run dev`'s one way to run it. No update notice, no telemetry
 * (nothing leaves the machine).
 */
export function runRedoclyLint(apis: readonly string[], options: { cancelSignal?: AbortSignal } = {}): Promise<CommandResult> {
  return runCommand(binCommand('redocly', ['lint', ...apis, '--config', 'redocly.yaml', '--format', 'json']), {
    env: { REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', REDOCLY_TELEMETRY: 'off' },
    timeoutMs: 120_000,
    ...options,
  });
}

/** Redocly's boxed notices (a Node.js deprecation, an update) say nothing about the spec. */
function withoutBanners(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/^\s*[╔║╚]/.test(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

import { relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { binCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';

export type Impact = 'major' | 'minor' | 'patch';

/** Where a rule saw a change, in the newer description (or the older one for a removal). */
export interface ChangeLocation {
  file: string;
  /** JSON pointer to the place in that file, e.g. `#/components/schemas/Sort/enum`. */
  pointer: string;
  line: number;
  col: number;
}

/** One rule's judgement of a change: which rule, what it means for clients, and where. */
export interface Verdict {
  ruleId: string;
  impact: Impact;
  message: string;
  location: ChangeLocation;
}

/** One change between two descriptions, as `redocly diff --format json` reports it (report version 1). */
export interface ContractChange {
  /** Where the change is, seen from an operation: `#/paths/~1/post/requestBody/...`. */
  path: string;
  kind: 'added' | 'removed' | 'modified';
  impact: Impact;
  /** For `modified`: the keyword that changed (`enum`, `type`, `format`...). */
  property?: string;
  verdicts: Verdict[];
}

export interface DiffReport {
  infoVersions: { base: string; revision: string };
  summary: Record<Impact, number>;
  changes: ContractChange[];
}

/** The JSON report layout this code reads; another one fails loudly rather than being misread. */
const REPORT_VERSION = '1';

/**
 * Compares two OpenAPI descriptions with Redocly CLI's `redocly diff`, whose rules
 * (`diff-recommended` in `redocly.yaml`) rate every change by the semver bump it needs.
 * Nothing is judged here: see `judgeRelease`.
 *
 * @param base the older description (the last release)
 * @param revision the newer one (the working spec)
 * @param config the Redocly config whose diff rules apply; default the project's `redocly.yaml`
 */
export async function diffDescriptions(base: string, revision: string, config = 'redocly.yaml'): Promise<DiffReport> {
  const command = binCommand('redocly', ['diff', base, revision, '--config', config, '--format', 'json', '--fail-on', 'none']);
  const result = await runCommand(command, { env: { REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' } });
  const failure = (why: string) =>
    new Error(`redocly diff ${relative(projectRoot, base)} ${relative(projectRoot, revision)} ${why}:\n${withoutBanner(result.stderr).trim()}`);
  if (result.code !== 0) throw failure(`failed (exit code ${String(result.code ?? result.signal)})`);
  let report: unknown;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw failure('printed no JSON report');
  }
  const version = (report as { reportVersion?: unknown }).reportVersion;
  if (version !== REPORT_VERSION) {
    throw failure(
      `printed a report of version ${JSON.stringify(version)}; this project reads version ${REPORT_VERSION}. ` +
        'Redocly CLI was upgraded: check tools/check/redocly-diff.ts against its new report, then test/tools/check/breaking-changes.test.ts',
    );
  }
  return report as DiffReport;
}

/** Redocly CLI 2.x on Node 20 prints a boxed end-of-support notice first; it says nothing about the diff. */
function withoutBanner(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/[╔║╚]/.test(line))
    .join('\n');
}

/**
 * A change's place as a reader would say it: `POST /shared requestBody/content/application~1json/schema/properties/sort · enum`.
 */
export function describePlace(change: ContractChange): string {
  const segments = change.path.replace(/^#\//, '').split('/');
  let where = change.path;
  if (segments[0] === 'paths' && segments.length >= 2) {
    const path = decodeSegment(segments[1] ?? '');
    const method = segments[2];
    where =
      method && /^(get|put|post|delete|options|head|patch|trace)$/.test(method)
        ? `${method.toUpperCase()} ${path}${segments.length > 3 ? ` ${segments.slice(3).map(decodeSegment).join('/')}` : ''}`
        : `${path}${segments.length > 2 ? ` ${segments.slice(2).map(decodeSegment).join('/')}` : ''}`;
  } else {
    where = segments.map(decodeSegment).join('/');
  }
  return change.property ? `${where} · ${change.property}` : where;
}

function decodeSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

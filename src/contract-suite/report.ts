import { KNOWN_DIFFERENCES } from './known-differences.js';
import type { CaseResult, OperationSummary, SuiteReport } from './result.js';

const LABEL = { pass: 'ok  ', fail: 'FAIL', skip: 'skip' } as const;

/**
 * The report for people: per operation, one line per check, with the reason and
 * the request for each failure, what the derivation could not cover and why;
 * then every operation of the spec with its case count.
 */
export function formatReport(report: SuiteReport): string {
  const lines: string[] = [];
  lines.push(`Contract suite: ${report.spec.title} ${report.spec.version} against ${report.baseUrl} (target: ${report.target})`);
  if (report.spec.rules !== undefined)
    lines.push(
      `Rules: ${report.spec.rules.length > 0 ? report.spec.rules.join(', ') : 'none (OpenAPI only; a spec turns conventions on with x-contract-suite, see src/contract-suite/rules.ts)'}`,
    );
  for (const note of report.specNotes ?? []) lines.push(`Spec note: ${note}`);
  if (report.unreachable !== undefined) {
    lines.push('', `Could not reach ${report.baseUrl}: ${report.unreachable}`, 'Nothing was checked. Is the server running, and is --base-url right?');
    return `${lines.join('\n')}\n`;
  }
  if (report.nothingChecked !== undefined) lines.push('', `Nothing was checked: ${report.nothingChecked}.`);

  const byOperation = new Map<string, CaseResult[]>(report.operations.map((operation) => [operation.operationId, []]));
  for (const result of report.results) byOperation.set(result.operationId, [...(byOperation.get(result.operationId) ?? []), result]);
  for (const operation of report.operations) {
    const results = byOperation.get(operation.operationId) ?? [];
    lines.push('', heading(operation));
    const width = Math.min(64, Math.max(0, ...results.map((result) => result.title.length)));
    for (const result of results) {
      const marker = result.outcome === 'pass' && result.excused.length > 0 ? 'ok* ' : LABEL[result.outcome];
      const status = result.status === undefined ? '---' : String(result.status);
      const differences = result.outcome === 'skip' ? [] : [...new Set(result.excused.map((finding) => `known difference: ${finding.difference}`))];
      const tail = [result.note, ...differences].filter(Boolean).join('; ');
      lines.push(`  ${marker}  ${result.polarity.padEnd(8)}  ${result.title.padEnd(width)}  ${status}${tail ? `  ${tail}` : ''}`.trimEnd());
      if (result.outcome !== 'fail') continue;
      for (const finding of result.findings) lines.push(`        - [${finding.category}] ${finding.message}`);
      if (result.curl) lines.push(`        request:  ${result.curl}`);
      if (result.responseExcerpt !== undefined) lines.push(`        response: ${result.status ?? ''} ${result.responseExcerpt || '(empty body)'}`);
    }
    for (const note of operation.notes) lines.push(`  note  ${note}`);
    for (const { status, reason } of operation.notProvoked) lines.push(`  not provoked  ${status}: ${reason}`);
  }

  lines.push('', `Operations (${report.operations.length}):`);
  const idWidth = Math.max(0, ...report.operations.map((operation) => operation.operationId.length));
  const routeWidth = Math.max(0, ...report.operations.map((operation) => `${operation.method} ${operation.path}`.length));
  for (const operation of report.operations) {
    lines.push(`  ${operation.operationId.padEnd(idWidth)}  ${`${operation.method} ${operation.path}`.padEnd(routeWidth)}  ${countOf(operation)}`);
  }

  const { summary } = report;
  lines.push(
    '',
    `${summary.checks} checks: ${summary.passed} passed${summary.passedWithKnownDifferences ? ` (${summary.passedWithKnownDifferences} marked ok* with a known difference)` : ''}, ` +
      `${summary.failed} failed, ${summary.skipped} skipped; ${summary.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s.`,
  );
  if (report.differencesApplied.length > 0) {
    lines.push('', `Known differences for ${report.target} (src/contract-suite/known-differences.ts):`);
    for (const difference of KNOWN_DIFFERENCES.filter((entry) => report.differencesApplied.includes(entry.id))) {
      lines.push(`  ${difference.id}: ${difference.reason}`);
    }
  }
  for (const hint of report.hints) lines.push('', `Hint: ${hint}`);
  lines.push(
    '',
    report.nothingChecked !== undefined
      ? 'NOTHING CHECKED: not a pass (exit 4).'
      : summary.failed > 0
        ? `FAILED: ${summary.failed} check${summary.failed === 1 ? '' : 's'} found a contract violation.`
        : 'PASSED: no contract violations.',
  );
  return `${lines.join('\n')}\n`;
}

/** `listOwnItems  POST /`; an operation without an operationId is named by its method and path alone. */
function heading(operation: OperationSummary): string {
  const route = `${operation.method} ${operation.path}`;
  return operation.operationId === route ? route : `${operation.operationId}  ${route}`;
}

/** `12 cases: 11 passed, 1 skipped`, or what leaves an operation unchecked. */
function countOf(operation: OperationSummary): string {
  const parts = [
    `${operation.passed} passed`,
    operation.failed ? `${operation.failed} failed` : '',
    operation.skipped ? `${operation.skipped} skipped` : '',
  ].filter(Boolean);
  const checked = operation.passed + operation.failed > 0;
  return `${operation.cases} case${operation.cases === 1 ? '' : 's'}${operation.cases ? `: ${parts.join(', ')}` : ''}${checked ? '' : '  NOT CHECKED'}`;
}

/** One progress line: where the run is. */
export function formatProgress(index: number, total: number, operationId: string, title: string): string {
  const width = String(total).length;
  return `[${String(index + 1).padStart(width)}/${total}] ${operationId}: ${title}`;
}

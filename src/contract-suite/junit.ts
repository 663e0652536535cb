import type { CaseResult, SuiteReport } from './result.js';

/**
 * The report as JUnit XML, the format CI systems read: one `testsuite` per operation, one
 * `testcase` per result (a check), `failure` with its findings, `skipped` with its reason. Written
 * here rather than with a builder package: five escapes and three elements are all the format needs.
 */
export function formatJunit(report: SuiteReport): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const { summary } = report;
  lines.push(
    `<testsuites name="${xml(`contract suite: ${report.spec.title} ${report.spec.version}`)}" tests="${summary.checks}" failures="${summary.failed}" skipped="${summary.skipped}" time="${seconds(report.durationMs)}">`,
  );
  for (const operation of report.operations) {
    const results = report.results.filter((result) => result.operationId === operation.operationId);
    const failed = results.filter((result) => result.outcome === 'fail').length;
    const skipped = results.filter((result) => result.outcome === 'skip').length;
    const time = results.reduce((sum, result) => sum + (result.elapsedMs ?? 0), 0);
    lines.push(`  <testsuite name="${xml(label(operation))}" tests="${results.length}" failures="${failed}" skipped="${skipped}" time="${seconds(time)}">`);
    for (const result of results) lines.push(...testcase(result));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

function testcase(result: CaseResult): string[] {
  const open = `    <testcase classname="${xml(`${result.method} ${result.path}`)}" name="${xml(`${result.polarity} ${result.title}`)}" time="${seconds(result.elapsedMs ?? 0)}"`;
  if (result.outcome === 'pass') return [`${open}/>`];
  if (result.outcome === 'skip') return [`${open}>`, `      <skipped message="${xml(result.note ?? 'skipped')}"/>`, '    </testcase>'];
  const message = result.findings.map((finding) => `[${finding.category}] ${finding.message}`).join('\n');
  const detail = [
    message,
    result.curl && `request: ${result.curl}`,
    result.responseExcerpt !== undefined && `response: ${result.status ?? ''} ${result.responseExcerpt}`,
  ]
    .filter(Boolean)
    .join('\n');
  return [
    `${open}>`,
    `      <failure message="${xml(result.findings[0]?.message ?? 'failed')}" type="${xml(result.findings[0]?.category ?? 'contract')}">${xml(detail)}</failure>`,
    '    </testcase>',
  ];
}

function label(operation: { operationId: string; method: string; path: string }): string {
  const route = `${operation.method} ${operation.path}`;
  return operation.operationId === route ? route : `${operation.operationId} (${route})`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** XML text and attribute values; control characters other than tab and newlines are not allowed in XML 1.0 at all. */
function xml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .split('')
    .filter((char) => char >= ' ' || char === '\t' || char === '\n' || char === '\r')
    .join('');
}

import { describe, expect, it } from 'vitest';
import { parseReports, redoclyFindings } from '../../../tools/check/redocly-lint.js';
import { bySeverity, formatFindings, type SpectralFinding } from '../../../tools/check/spectral.js';

const problem = (ruleId: string, severity: string, line: number, message: string) => ({
  ruleId,
  severity,
  message,
  location: [{ source: { ref: 'openapi/openapi.yaml' }, pointer: '#/x', start: { line, col: 7 } }],
});

describe("npm run lint: Redocly's problems as one line each, errors first", () => {
  it('reads the reports Redocly prints one after the other, braces inside strings and all', () => {
    const main = {
      totals: { errors: 1, warnings: 1 },
      problems: [
        problem('operation-summary', 'warn', 40, 'Operation must have a "summary" {x}.'),
        problem('no-invalid-parameter-examples', 'error', 530, 'Example value must match pattern "^{a}$".'),
      ],
    };
    const account = { totals: { errors: 0, warnings: 0 }, problems: [] };
    const stdout = `${JSON.stringify(main, null, 2)}${JSON.stringify(account)}\n`;
    expect(parseReports(stdout)).toHaveLength(2);
    expect(redoclyFindings(stdout).map(({ file, line, column, severity, code }) => `${file}:${line}:${column} ${severity} ${code}`)).toEqual([
      'openapi/openapi.yaml:530:7 error no-invalid-parameter-examples',
      'openapi/openapi.yaml:40:7 warning operation-summary',
    ]);
  });

  it('reads no report from text that is none (a spec that does not parse)', () => {
    expect(parseReports('validating openapi/openapi.yaml...\nFailed to parse API description')).toEqual([]);
  });

  it("prints Spectral's findings errors first too, each in file order", () => {
    const finding = (line: number, severity: SpectralFinding['severity']): SpectralFinding => ({
      file: 'openapi/openapi.yaml',
      line,
      column: 1,
      severity,
      code: 'rule',
      message: 'm',
      path: [],
    });
    expect(bySeverity([finding(1, 'warning'), finding(2, 'hint'), finding(3, 'error'), finding(4, 'error')]).map((f) => f.line)).toEqual([3, 4, 1, 2]);
    expect(formatFindings([finding(1, 'warning'), finding(9, 'error')], ['openapi/openapi.yaml']).split('\n')[0]).toBe('openapi/openapi.yaml:9:1 error rule m');
  });
});

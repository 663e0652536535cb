import { describe, expect, it } from 'vitest';
import { EXPORT_WARNING_INTERVAL_MS, type ExportFailureWarning, exportFailureReporter, withoutUserInfo } from '../../src/ops/export-failures.js';

describe('the export failure reporter', () => {
  it('warns at the first failure, then at most once an interval with the count since the last warning', () => {
    let now = 1_000_000;
    const warnings: ExportFailureWarning[] = [];
    const report = exportFailureReporter(
      (warning) => warnings.push(warning),
      () => now,
    );
    report(new Error('connect ECONNREFUSED 127.0.0.1:4318'));
    expect(warnings).toEqual([{ reason: 'connect ECONNREFUSED 127.0.0.1:4318', failures: 1 }]);
    for (let failure = 0; failure < 5; failure++) {
      now += 1_000;
      report(new Error('connect ECONNREFUSED 127.0.0.1:4318'));
    }
    expect(warnings).toHaveLength(1);
    now += EXPORT_WARNING_INTERVAL_MS;
    report('Not Found');
    expect(warnings[1]).toEqual({ reason: 'Not Found', failures: 6 });
  });

  it('keeps a long reason to 200 characters', () => {
    const warnings: ExportFailureWarning[] = [];
    exportFailureReporter((warning) => warnings.push(warning))(new Error('x'.repeat(5_000)));
    expect(warnings[0]?.reason).toHaveLength(200);
  });

  it('leaves the user and password of an endpoint out of what is logged', () => {
    expect(withoutUserInfo('https://tenant:s3cr3t-token@collector.example:4318/')).toBe('https://collector.example:4318/');
    expect(withoutUserInfo('http://127.0.0.1:4318')).toBe('http://127.0.0.1:4318/');
  });
});

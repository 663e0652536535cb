import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES } from '../../src/contract-suite/known-differences.js';
import { formatReport } from '../../src/contract-suite/report.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { type MockProcess, startMock } from '../../tools/process/mock.js';
import { specWith, writeSpec } from './fixtures/spec-with.js';

/**
 * The mock follows a new operation with no change either: Prism on a copy of the
 * spec with `GET /items/{id}` passes the suite with `--target prism`, and every
 * known difference (including the ones only a path parameter shows) still occurs.
 */
const spec = specWith('./get-item.yaml');
let prism: MockProcess | undefined;
let specFile: string | undefined;
let report: SuiteReport;

beforeAll(async () => {
  specFile = writeSpec(spec);
  prism = await startMock({ spec: specFile });
  report = await runContractSuite({ baseUrl: prism.url, token: 'any-token-will-do', target: 'prism', spec });
}, 120_000);

afterAll(async () => {
  await prism?.stop();
  if (specFile) rmSync(dirname(specFile), { recursive: true, force: true });
});

describe('the contract suite against Prism on the spec with GET /items/{id}', () => {
  it('passes with only the listed differences', () => {
    const failed = report.results
      .filter((result) => result.outcome === 'fail')
      .map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);
    expect(failed, formatReport(report)).toEqual([]);
    expect(report.operations.find((operation) => operation.operationId === 'getItem')?.passed).toBeGreaterThan(0);
  });

  it('needs every listed difference: each one is observed', () => {
    // Prism's own differences: the stateful mock's are held to being needed by test/mock/stateful-suite.test.ts.
    const unused = KNOWN_DIFFERENCES.filter((difference) => difference.target === 'prism' && !report.differencesApplied.includes(difference.id)).map(
      (difference) => difference.id,
    );
    expect(unused, 'a known difference that never occurs should be deleted').toEqual([]);
  });

  it('answers an id that cannot exist with the example, which the listed difference explains', () => {
    const unknown = report.results.find((result) => result.id === 'getItem negative unknown-id path/id');
    expect(unknown).toMatchObject({ outcome: 'pass', status: 200, excused: [expect.objectContaining({ difference: 'prism-every-id-exists' })] });
  });
});

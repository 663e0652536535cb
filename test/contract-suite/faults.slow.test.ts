/**
 * Issue 23's bar: the contract suite alone, run against this project's server with one fault injected
 * at a time, catches each of twenty faults, by the check meant to catch it, and passes against the
 * server without a fault. The suite is given what a black-box tester would be given: the caller's
 * key, a revoked and an expired key of the same user, another user's key, and a count of examples.
 * The server runs in-process (`fixtures/faulty-api.ts`), one per fault, on its own in-memory database.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { formatReport } from '../../src/contract-suite/report.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { FAULTS } from './fixtures/faults.js';
import { type Fault, faultyApi } from './fixtures/faulty-api.js';

/** Enough for `limit` (1 to 100) to be walked value by value, edges first. */
const EXAMPLES = 140;
const SEED = 23;

async function suiteAgainst(fault?: Fault): Promise<{ report: SuiteReport; secrets: string[] }> {
  const api = await faultyApi(fault);
  try {
    const report = await runContractSuite({
      baseUrl: api.baseUrl,
      token: api.key,
      fetch: api.fetch,
      examples: EXAMPLES,
      seed: SEED,
      refusedCredentials: [
        { scheme: 'bearerAuth', value: api.revokedKey },
        { scheme: 'bearerAuth', value: api.expiredKey },
      ],
      otherToken: api.strangerKey,
    });
    return { report, secrets: [api.key, api.revokedKey, api.expiredKey, api.strangerKey] };
  } finally {
    await api.close();
  }
}

const failing = (report: SuiteReport) => report.results.filter((result) => result.outcome === 'fail');
const caught: Array<{ fault: string; checks: string[] }> = [];

afterAll(() => {
  // The table of the issue's note: each fault and the checks that caught it.
  const width = Math.max(...caught.map((row) => row.fault.length));
  const lines = caught.map(
    (row) => `${row.fault.padEnd(width)}  ${row.checks.slice(0, 3).join('; ')}${row.checks.length > 3 ? `; … (${row.checks.length} in all)` : ''}`,
  );
  process.stdout.write(`\nFault → checks that caught it (seed ${SEED}, ${EXAMPLES} examples)\n${lines.join('\n')}\n`);
});

describe('the contract suite against the server with a fault injected', () => {
  it('passes against the server without a fault, the phases included, with no credential in clear', async () => {
    const { report, secrets } = await suiteAgainst();
    expect(
      failing(report).map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`),
      formatReport(report),
    ).toEqual([]);
    const families = new Set(report.results.map((result) => result.family));
    for (const family of ['property-valid', 'property-invalid', 'refused-credential', 'other-user'] as const) expect(families).toContain(family);
    expect(report.hints).toContain(`The property phase ran with seed ${SEED}: --seed ${SEED} sends the same requests again.`);
    const text = JSON.stringify(report) + formatReport(report);
    for (const secret of secrets) expect(text).not.toContain(secret);
  }, 60_000);

  it.each(FAULTS.map((fault) => [fault.id, fault] as const))(
    'catches %s',
    async (_id, fault) => {
      const { report, secrets } = await suiteAgainst(fault);
      const failures = failing(report);
      const byExpected = failures.filter((result) => fault.caughtBy.includes(result.family as never));
      caught.push({ fault: `${fault.id}: ${fault.description}`, checks: byExpected.map((result) => `${result.id}`) });
      expect(byExpected.length, `${fault.description}: caught by ${failures.map((result) => result.id).join(', ') || 'nothing'}`).toBeGreaterThan(0);
      // Every failure shows a request to repeat it, with the credentials as shell variables.
      for (const result of byExpected) expect(result.curl).toMatch(/^curl -i -X /);
      const text = JSON.stringify(report) + formatReport(report);
      for (const secret of secrets) expect(text).not.toContain(secret);
    },
    60_000,
  );
});

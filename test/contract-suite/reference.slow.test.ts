/**
 * The corpus of reference servers (`reference/`, issue 31 point 7): the contract suite, at the CLI's defaults
 * (with `--allow-writes`, as an in-memory server made for the run allows, and another user's credential), finds
 * nothing wrong with each correct server, and catches each planted bug by a check whose family names it, except
 * the named set of bugs that wait for the generation work. Prints the kill table.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { formatReport } from '../../src/contract-suite/report.js';
import { CORPUS, EXPECTED_MISSES_UNTIL_GENERATION } from './reference/corpus.js';
import { runReference, violations } from './reference/harness.js';

const rows: Array<{ bug: string; description: string; caughtBy: string[] }> = [];

afterAll(() => {
  const planted = rows.length;
  const caught = rows.filter((row) => row.caughtBy.length > 0).length;
  const width = Math.max(...rows.map((row) => row.bug.length));
  const lines = rows.map(
    (row) =>
      `${row.bug.padEnd(width)}  ${row.caughtBy.length > 0 ? row.caughtBy.slice(0, 3).join('; ') : 'MISSED (expected until the generation work)'}  — ${row.description}`,
  );
  process.stdout.write(`\nReference corpus: ${caught} of ${planted} planted bugs caught at the defaults\n${lines.join('\n')}\n`);
});

describe('the contract suite on the reference servers', () => {
  it.each(CORPUS.map((server) => [server.name, server] as const))(
    'finds nothing wrong with the correct %s server',
    async (_name, server) => {
      const report = await runReference(await server.run());
      expect(violations(report), formatReport(report)).toEqual([]);
      expect(report.summary.passed).toBeGreaterThan(20);
    },
    60_000,
  );

  const bugs = CORPUS.flatMap((server) => Object.entries(server.bugs).map(([bug, planted]) => ({ server, bug, id: `${server.name}/${bug}`, ...planted })));
  it.each(bugs.map((bug) => [bug.id, bug] as const))(
    '%s',
    async (id, bug) => {
      const report = await runReference(await bug.server.run(bug.bug));
      const failing = report.results.filter((result) => result.outcome === 'fail');
      const named = failing.filter((result) => result.family !== 'coverage' && bug.caughtBy.includes(result.family));
      rows.push({ bug: id, description: bug.description, caughtBy: named.map((result) => result.id) });
      if (EXPECTED_MISSES_UNTIL_GENERATION.has(id)) {
        // Not caught yet: when it is, take it out of EXPECTED_MISSES_UNTIL_GENERATION.
        expect(violations(report), `${id} is caught now: take it out of EXPECTED_MISSES_UNTIL_GENERATION`).toEqual([]);
        return;
      }
      expect(
        named.length,
        `${bug.description}: caught by ${failing.map((result) => result.id).join(', ') || 'nothing'}\n${formatReport(report)}`,
      ).toBeGreaterThan(0);
      for (const result of named) expect(result.curl).toMatch(/^curl -i -X /);
    },
    60_000,
  );

  it('names only bugs of the corpus as expected misses', () => {
    const ids = new Set(bugs.map((bug) => bug.id));
    expect([...EXPECTED_MISSES_UNTIL_GENERATION].filter((id) => !ids.has(id))).toEqual([]);
  });
});

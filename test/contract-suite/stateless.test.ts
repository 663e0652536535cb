/**
 * A target that keeps no state (a mock such as Prism: `--target prism` sets `stateless`): the stateful phase checks
 * each answer of its sequences but expects nothing back from a read, so a mock is not failed for "use after free"
 * or a create it cannot read back. The same run on a stateful target finds both (the control).
 */
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/contract/spec.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { CRUD_SPEC_PATH, CRUD_TOKEN, type CrudOptions, crudApi } from './fixtures/crud/server.js';

const spec = loadSpec(CRUD_SPEC_PATH);

function suite(options: CrudOptions, stateless: boolean): Promise<SuiteReport> {
  return runContractSuite({ baseUrl: 'http://127.0.0.1:9', token: CRUD_TOKEN, spec, fetch: crudApi(options), allowWrites: true, stateful: true, stateless });
}

const lifecycle = (report: SuiteReport) => report.results.find((result) => result.id === 'createThing positive stateful lifecycle');

describe('the stateful phase on a target that keeps no state', () => {
  it.each([
    ['a create that keeps nothing', { createForgotten: true }],
    ['a deleted thing still readable', { useAfterFree: true }],
  ] as const)('expects no state: %s is not failed, and the result says nothing was read back', async (_what, options) => {
    const report = await suite(options, true);
    expect(lifecycle(report)).toMatchObject({ outcome: 'pass', note: expect.stringContaining('the target keeps no state: nothing read back') });
  });

  it.each([
    ['a create that keeps nothing', { createForgotten: true }, /does not find/],
    ['a deleted thing still readable', { useAfterFree: true }, /use after free/],
  ] as const)('on a stateful target finds %s (the control)', async (_what, options, finding) => {
    const report = await suite(options, false);
    expect(lifecycle(report)?.outcome).toBe('fail');
    expect(
      lifecycle(report)
        ?.findings.map((entry) => entry.message)
        .join('\n'),
    ).toMatch(finding);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AcceptedChange, readAcceptedChanges } from '../../../tools/check/accepted-changes.js';
import { type ChangelogRelease, parseChangelog } from '../../../tools/check/changelog.js';
import type { ContractChange, DiffReport } from '../../../tools/check/redocly-diff.js';
import { type GateInput, judgeRelease } from '../../../tools/check/release-gate.js';

const ENUM_NARROWED: ContractChange = {
  path: '#/paths/~1/post/requestBody/content/application~1json/schema/properties/sort',
  kind: 'modified',
  impact: 'major',
  property: 'enum',
  verdicts: [
    {
      ruleId: 'enum-values-removed',
      impact: 'major',
      message: "Enum of `sort` lost values: 'desc'.",
      location: { file: 'openapi/openapi.yaml', pointer: '#/components/schemas/Sort/enum', line: 256, col: 13 },
    },
  ],
};
const FIELD_ADDED: ContractChange = { path: '#/components/schemas/Item/properties/note', kind: 'added', impact: 'minor', verdicts: [] };

function report(changes: ContractChange[], versions = { base: '1.0.0', revision: '1.0.0' }): DiffReport {
  const count = (impact: string) => changes.filter((change) => change.impact === impact).length;
  return { infoVersions: versions, summary: { major: count('major'), minor: count('minor'), patch: count('patch') }, changes };
}

const RELEASED_1: ChangelogRelease = { file: 'openapi.yaml', version: '1.0.0', breaking: [], line: 20 };
const RELEASED_2: ChangelogRelease = { file: 'openapi.yaml', version: '2.0.0', breaking: ['`sort` no longer takes `desc`.'], line: 12 };
const ACCEPT_ENUM: AcceptedChange = { rule: 'enum-values-removed', at: '#/components/schemas/Sort/enum', values: ['desc'], reason: 'no client ever sent desc' };
/** The problem types gained one value, accepted with its reason, then another, which nobody has judged. */
const problemTypesGained = (...values: string[]): ContractChange => ({
  path: '#/paths/~1/post/responses/400/content/application~1problem+json/schema/properties/type',
  kind: 'modified',
  impact: 'major',
  property: 'enum',
  verdicts: [
    {
      ruleId: 'enum-values-added',
      impact: 'major',
      message: `Enum of \`type\` gained values: ${values.map((value) => `'${value}'`).join(', ')}.`,
      location: { file: 'openapi/openapi.yaml', pointer: '#/components/schemas/ProblemType/enum', line: 430, col: 7 },
    },
  ],
});
const ACCEPT_EXPECTATION_FAILED: AcceptedChange = {
  rule: 'enum-values-added',
  at: '#/components/schemas/ProblemType/enum',
  values: ['urn:problem-type:expectation-failed'],
  reason: 'sent only with 417',
};

function gate(overrides: Partial<GateInput>) {
  return judgeRelease({
    file: 'openapi.yaml',
    specName: 'openapi/openapi.yaml',
    releasedName: 'openapi/released/openapi.yaml',
    report: report([]),
    accepted: [],
    changelog: [RELEASED_1],
    changelogName: 'CHANGELOG.md',
    acceptedName: 'openapi/released/accepted-changes.yaml',
    ...overrides,
  });
}

describe('judgeRelease', () => {
  it.each([
    { given: 'no change', input: {}, ok: true, says: 'nothing breaks a client' },
    { given: 'an added field only', input: { report: report([FIELD_ADDED]) }, ok: true, says: 'changes 0 major, 1 minor' },
    {
      given: 'a breaking change at the released version',
      input: { report: report([ENUM_NARROWED, FIELD_ADDED]) },
      ok: false,
      says: 'raise info.version in openapi/openapi.yaml to 2.0.0 and add a "## openapi.yaml 2.0.0 (<date>)" section to CHANGELOG.md',
    },
    {
      given: 'a breaking change at the released version',
      input: { report: report([ENUM_NARROWED]) },
      ok: false,
      says: 'keep clients working: undo the change',
    },
    {
      given: 'a breaking change with a minor bump only',
      input: { report: report([ENUM_NARROWED], { base: '1.0.0', revision: '1.1.0' }) },
      ok: false,
      says: 'can break clients built against 1.0.0',
    },
    {
      given: 'a breaking change, the major raised, no release notes',
      input: { report: report([ENUM_NARROWED], { base: '1.0.0', revision: '2.0.0' }) },
      ok: false,
      says: 'does not say what breaks',
    },
    {
      given: 'a breaking change, the major raised, notes without a breaking list',
      input: { report: report([ENUM_NARROWED], { base: '1.0.0', revision: '2.0.0' }), changelog: [{ ...RELEASED_2, breaking: [] }, RELEASED_1] },
      ok: false,
      says: '"### Breaking changes" list',
    },
    {
      given: 'a breaking change, the major raised, notes that say what breaks',
      input: { report: report([ENUM_NARROWED], { base: '1.0.0', revision: '2.0.0' }), changelog: [RELEASED_2, RELEASED_1] },
      ok: true,
      says: 'released as the breaking version 2.0.0 (CHANGELOG.md:12',
    },
    {
      given: 'a breaking change listed as accepted',
      input: { report: report([ENUM_NARROWED]), accepted: [ACCEPT_ENUM] },
      ok: true,
      says: 'because no client ever sent desc',
    },
    {
      given: 'an enum value accepted with its reason',
      input: { report: report([problemTypesGained('urn:problem-type:expectation-failed')]), accepted: [ACCEPT_EXPECTATION_FAILED] },
      ok: true,
      says: 'because sent only with 417',
    },
    {
      given: 'a further enum value at the place of an accepted one, which the reason does not cover',
      input: {
        report: report([problemTypesGained('urn:problem-type:expectation-failed', 'urn:problem-type:conflict')]),
        accepted: [ACCEPT_EXPECTATION_FAILED],
      },
      ok: false,
      says: "gained values: 'urn:problem-type:expectation-failed', 'urn:problem-type:conflict'",
    },
    {
      given: 'a further enum value: the accepted entry is named as outgrown, not stale',
      input: {
        report: report([problemTypesGained('urn:problem-type:expectation-failed', 'urn:problem-type:conflict')]),
        accepted: [ACCEPT_EXPECTATION_FAILED],
      },
      ok: false,
      says: 'accepts enum-values-added at #/components/schemas/ProblemType/enum for urn:problem-type:expectation-failed only: a value added since needs its own reason',
    },
    {
      given: 'an accepted change that is no longer there',
      input: { accepted: [ACCEPT_ENUM] },
      ok: false,
      says: 'Remove the entry',
    },
    {
      given: 'a lower version than the release',
      input: { report: report([], { base: '1.2.0', revision: '1.1.9' }), changelog: [{ ...RELEASED_1, version: '1.2.0' }] },
      ok: false,
      says: 'lower than the released 1.2.0',
    },
    { given: 'a version that is not semver', input: { report: report([], { base: '1.0.0', revision: 'v2' }) }, ok: false, says: 'semantic version' },
    { given: 'a release the changelog does not record', input: { changelog: [] }, ok: false, says: 'has no "## openapi.yaml 1.0.0" section' },
  ])('$given: ok=$ok', ({ input, ok, says }) => {
    const result = gate(input);
    expect(result.ok, result.message).toBe(ok);
    expect(result.message).toContain(says);
  });

  it('names the place, the rule and the line of a breaking change', () => {
    const { message } = gate({ report: report([ENUM_NARROWED]) });
    expect(message).toContain('POST / requestBody/content/application/json/schema/properties/sort · enum at openapi/openapi.yaml:256');
    expect(message).toContain("Enum of `sort` lost values: 'desc'. (enum-values-removed)");
  });
});

describe('parseChangelog', () => {
  it('reads each release section and its breaking changes', () => {
    const markdown = [
      '# Contract changelog',
      '## Unreleased',
      '- something',
      '## openapi.yaml 2.0.0 (2026-12-01)',
      'Intro.',
      '### Added',
      '- `note` on items',
      '### Breaking changes',
      '- `sort` no longer takes `desc`.',
      '* `GET /shared` is gone.',
      '## account.yaml 1.0.0 (2026-11-22)',
      '- first',
    ].join('\n');
    expect(parseChangelog(markdown)).toEqual([
      { file: 'openapi.yaml', version: '2.0.0', breaking: ['`sort` no longer takes `desc`.', '`GET /shared` is gone.'], line: 4 },
      { file: 'account.yaml', version: '1.0.0', breaking: [], line: 11 },
    ]);
  });
});

describe('readAcceptedChanges', () => {
  it('refuses an enum entry that does not say which values its reason is about', () => {
    const folder = mkdtempSync(join(tmpdir(), 'accepted-'));
    try {
      const file = join(folder, 'accepted-changes.yaml');
      writeFileSync(file, "openapi.yaml:\n  - rule: enum-values-added\n    at: '#/components/schemas/ProblemType/enum'\n    reason: sent only with 417\n");
      expect(() => readAcceptedChanges(file)).toThrow(/entry 1 of openapi\.yaml \(enum-values-added\) needs `values`/);
      writeFileSync(file, "openapi.yaml:\n  - rule: enum-values-added\n    at: '#/components/schemas/ProblemType/enum'\n    values: [a]\n    reason: r\n");
      expect(readAcceptedChanges(file)['openapi.yaml']?.[0]?.values).toEqual(['a']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

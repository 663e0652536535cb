import { describe, expect, it } from 'vitest';
import type { AcceptedChange } from '../../../tools/check/accepted-changes.js';
import { parseChangelog, type ChangelogRelease } from '../../../tools/check/changelog.js';
import type { ContractChange, DiffReport } from '../../../tools/check/redocly-diff.js';
import { judgeRelease, type GateInput } from '../../../tools/check/release-gate.js';

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
const ACCEPT_ENUM: AcceptedChange = { rule: 'enum-values-removed', at: '#/components/schemas/Sort/enum', reason: 'no client ever sent desc' };

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

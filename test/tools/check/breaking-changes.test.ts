import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Document, parseDocument } from 'yaml';
import { projectRoot, readContracts } from '../../../src/contract/project.js';
import { type DiffReport, diffDescriptions } from '../../../tools/check/redocly-diff.js';
import { judgeRelease } from '../../../tools/check/release-gate.js';
import { ITEM_TEXT_FIELD } from '../../helpers/item-fixture.js';
import { SORT } from '../../helpers/spec-fixture.js';

const [publicApi] = readContracts();
if (!publicApi) throw new Error('redocly.yaml declares no api');
const fixture = relative(projectRoot, fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'breaking-changes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Edits a parsed copy of the spec, failing with "update this fixture" when the place to edit is gone. */
function at(document: Document, path: (string | number)[]): unknown {
  if (!document.hasIn(path)) throw new Error(`update this fixture: ${fixture} edits ${path.join('.')} of the spec, which no longer has it`);
  return document.getIn(path);
}

/** The value of the spec's Sort that the narrowed enum below drops: its last. */
const NARROWED = SORT.values.at(-1);

/**
 * The five changes that break clients, each made alone on a copy of the working spec,
 * with the rule of `redocly diff` that must catch it. A Redocly upgrade that renames
 * or drops one of these rules fails here by name.
 */
const MUTATIONS: Array<{ name: string; rule: string; edit: (spec: Document) => void }> = [
  {
    name: 'a removed operation (GET /shared)',
    rule: 'operation-removed',
    edit: (spec) => {
      at(spec, ['paths', '/shared', 'get']);
      spec.deleteIn(['paths', '/shared', 'get']);
    },
  },
  {
    name: `a narrowed enum (${NARROWED} removed from Sort)`,
    rule: 'enum-values-removed',
    edit: (spec) => {
      const values = (at(spec, ['components', 'schemas', 'Sort', 'enum']) as { toJSON(): unknown }).toJSON() as string[];
      spec.setIn(['components', 'schemas', 'Sort', 'enum'], spec.createNode(values.filter((value) => value !== NARROWED)));
    },
  },
  {
    name: 'a new required request field (ListRequest.tag)',
    rule: 'required-properties-added',
    edit: (spec) => {
      at(spec, ['components', 'schemas', 'ListRequest', 'properties']);
      spec.setIn(['components', 'schemas', 'ListRequest', 'properties', 'tag'], spec.createNode({ type: 'string', maxLength: 20 }));
      spec.setIn(['components', 'schemas', 'ListRequest', 'required'], spec.createNode(['tag']));
    },
  },
  {
    name: `a removed response field (Item.${ITEM_TEXT_FIELD.name})`,
    rule: 'property-removed',
    edit: (spec) => {
      const field = ITEM_TEXT_FIELD.name;
      at(spec, ['components', 'schemas', 'Item', 'properties', field]);
      spec.deleteIn(['components', 'schemas', 'Item', 'properties', field]);
      const required = (at(spec, ['components', 'schemas', 'Item', 'required']) as { toJSON(): unknown }).toJSON() as string[];
      spec.setIn(['components', 'schemas', 'Item', 'required'], spec.createNode(required.filter((name) => name !== field)));
    },
  },
  {
    name: 'a type change (Problem.status from integer to string)',
    rule: 'schema-type-changed',
    edit: (spec) => {
      at(spec, ['components', 'schemas', 'Problem', 'properties', 'status', 'type']);
      spec.setIn(['components', 'schemas', 'Problem', 'properties', 'status'], spec.createNode({ type: 'string', maxLength: 3 }));
    },
  },
];

function mutatedCopy(name: string, edit: (spec: Document) => void): string {
  const spec = parseDocument(readFileSync(publicApi!.spec, 'utf8'));
  edit(spec);
  const file = join(scratch, `${name.replace(/\W+/g, '-')}.yaml`);
  writeFileSync(file, spec.toString());
  return file;
}

describe('redocly diff, as the breaking-change gate runs it', () => {
  const reports = new Map<string, DiffReport>();
  let unchanged: DiffReport;
  beforeAll(async () => {
    // One redocly process per case, side by side: each spends most of its second starting up.
    const runs = MUTATIONS.map(async ({ name, edit }) => reports.set(name, await diffDescriptions(publicApi!.spec, mutatedCopy(name, edit))));
    [unchanged] = await Promise.all([diffDescriptions(publicApi!.spec, publicApi!.spec), ...runs]);
  }, 120_000);

  it('finds nothing between the spec and itself', () => {
    expect(unchanged.changes).toEqual([]);
  });

  it.each(MUTATIONS)('rates $name major, by $rule', ({ name, rule }) => {
    const report = reports.get(name)!;
    const majors = report.changes.filter((change) => change.impact === 'major');
    expect(majors.flatMap((change) => change.verdicts.map((verdict) => verdict.ruleId))).toContain(rule);
    const gate = judgeRelease({
      file: 'openapi.yaml',
      specName: 'openapi/openapi.yaml',
      releasedName: 'openapi/released/openapi.yaml',
      report,
      accepted: [],
      changelog: [{ file: 'openapi.yaml', version: report.infoVersions.base, breaking: [], line: 1 }],
      changelogName: 'CHANGELOG.md',
      acceptedName: 'openapi/released/accepted-changes.yaml',
    });
    expect(gate.ok).toBe(false);
    expect(gate.message).toContain('can break clients');
    expect(gate.message).toContain(`(${rule})`);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, readContracts } from '../../../src/contract/project.js';
import { jsdocSamples, markdownSamples, readSampleErrors, samplesResult } from '../../../tools/check/code-samples.js';
import { checkStaleNames } from '../../../tools/check/stale-names.js';
import { ITEM_TEXT_FIELD, renameItemText } from '../../helpers/item-fixture.js';
import { SORT } from '../../helpers/spec-fixture.js';

const scratch = mkdtempSync(join(tmpdir(), 'stale-names-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const contracts = readContracts();
const main = contracts.find((contract) => contract.name === 'main')!;

/** The item's free-text field, which the rename below renames. */
const field = ITEM_TEXT_FIELD.name;

/** The contracts with the public spec as it is standing for its release, so what an edit drops is what the prose says now. */
const sinceNow = (edited: typeof contracts) => edited.map((contract) => (contract.name === main.name ? { ...contract, released: main.spec } : contract));

/** The contracts with the public spec edited as a developer would, the prose left as it is. */
function edited(edit: (text: string) => string) {
  const file = join(scratch, `openapi-${Math.random().toString(36).slice(2)}.yaml`);
  const text = readFileSync(main.spec, 'utf8');
  const next = edit(text);
  expect(next, 'the edit applies to the spec as it is').not.toBe(text);
  writeFileSync(file, next);
  return contracts.map((contract) => (contract === main ? { ...contract, spec: file } : contract));
}

describe('names the specs dropped, still used in prose', () => {
  it('finds none today', () => {
    expect(checkStaleNames(contracts).problems).toEqual([]);
  });

  it("names every description and page that still says a value of Sort once the enum drops it (for another, as of the spec's release)", () => {
    // The spec as it is stands for its release, so the value dropped is one the prose names now: the last of Sort's.
    const dropped = SORT.values.at(-1) ?? '';
    const enumOf = (values: readonly string[]) => `\n      enum: [${values.join(', ')}]\n      default: ${SORT.default}\n`;
    const problems = checkStaleNames(
      edited((text) => text.replace(enumOf(SORT.values), enumOf([...SORT.values.filter((value) => value !== dropped), 'another']))).map((contract) =>
        contract.name === main.name ? { ...contract, released: main.spec } : contract,
      ),
    ).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`#/components/schemas/Sort/description: it names ${dropped}, which Sort had at its release`)),
        expect.stringMatching(new RegExp(`#/info/description: \`${dropped}\` is no longer in the spec`)),
        expect.stringMatching(new RegExp(`^update docs/what-the-contract-decides\\.md:\\d+: \`${dropped}\` is no longer in`)),
      ]),
    );
  });

  it("names the Item description's plain-word mention of a renamed field", () => {
    const { problems } = checkStaleNames(sinceNow(edited(renameItemText)));
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`#/components/schemas/Item/description: it names ${field}, which Item had`))]),
    );
  });
});

describe(`a name one schema dropped while another may keep it (issue 35: Item.${field} renamed; Problem keeps its title)`, () => {
  let renamed: ReturnType<typeof edited>;
  beforeAll(() => {
    renamed = sinceNow(edited(renameItemText));
  });

  it("names the decision table's row on Item, in the spec and in docs/, and not the Problem's title", () => {
    const { problems } = checkStaleNames(renamed);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`#/info/description: \`${field}\` here is Item's field .*which Item had at its release`)),
        expect.stringMatching(new RegExp(`^update docs/what-the-contract-decides\\.md:\\d+: \`${field}\` here is Item's field`)),
      ]),
    );
    // Problem's own description says `title` too, and means its own.
    expect(problems.filter((problem) => /#\/components\/schemas\/(Problem|ProblemType)/.test(problem))).toEqual([]);
  });

  it('passes over the sentence of docs/editing-the-contract.md that explains the check, and only that sentence', () => {
    const page = 'docs/editing-the-contract.md';
    expect(checkStaleNames(renamed).problems.filter((problem) => problem.includes(page))).toEqual([]);
    // The same words outside the explaining sentence are a finding like any other.
    const more = (file: string) => readFileSync(join(projectRoot, file), 'utf8') + (file === page ? `\nEvery item has a \`${field}\`.\n` : '');
    const lines = more(page).split('\n').length;
    expect(checkStaleNames(renamed, projectRoot, more).problems.filter((problem) => problem.includes(page))).toEqual([
      expect.stringMatching(new RegExp(`^update ${page}:${lines - 1}: \`${field}\` here is Item's field`)),
    ]);
  });

  it('names the exception of .spectral.yaml that the rename left with nothing to excuse', () => {
    // A project of the renamed spec and the ruleset alone, so the spec is where .spectral.yaml names it.
    const root = join(scratch, `project-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(root, 'openapi'), { recursive: true });
    writeFileSync(join(root, 'openapi', 'openapi.yaml'), renameItemText(readFileSync(main.spec, 'utf8')));
    copyFileSync(join(projectRoot, '.spectral.yaml'), join(root, '.spectral.yaml'));
    const { problems } = checkStaleNames([{ ...main, spec: join(root, 'openapi', 'openapi.yaml') }], root);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^update \\.spectral\\.yaml:\\d+: the exception for openapi/openapi\\.yaml#/components/schemas/Item/properties/${field} .* is stale`),
        ),
      ]),
    );
  });

  it('names an exemption whose sentence is gone, so it cannot come to cover another', () => {
    const page = 'docs/editing-the-contract.md';
    const reworded = (file: string) => {
      const text = readFileSync(join(projectRoot, file), 'utf8');
      return file === page ? text.replace('A field renamed or an enum value dropped since the release', 'A renamed field') : text;
    };
    // Against the specs as they are (each its own release), so no name dropped since the release is in the passage unexempted.
    const unreleased = contracts.map((contract) => ({ ...contract, released: contract.spec }));
    expect(checkStaleNames(unreleased, projectRoot, reworded).problems).toEqual([
      `update tools/check/stale-names.ts: ${page} no longer has the passage EXPLAINED exempts; point it at the passage that explains this check now`,
    ]);
  });
});

describe('the TypeScript samples the copies check typechecks', () => {
  it('tells an error in the code the samples import from an error in a sample, each with its own fix', () => {
    // A DELETE answering 204 once broke src/client/index.ts: that was no sample's fault, and "make each sample say..." sent the reader astray.
    const stdout = [
      "../../../src/client/index.ts(116,12): error TS2741: Property 'deleteItem' is missing in type '{...}'.",
      "node_modules/.cache/code-samples/sample-000.ts(3,5): error TS2353: Object literal may only specify known properties, and 'titel' does not exist.",
    ].join('\n');
    const { inSamples, elsewhere } = readSampleErrors(stdout, [{ file: 'README.md', line: 40, code: '' }], ['sample-000.ts']);
    expect(inSamples).toEqual(["README.md:41: Object literal may only specify known properties, and 'titel' does not exist. (TS2353)"]);
    expect(elsewhere).toEqual(["../../../src/client/index.ts(116,12): error TS2741: Property 'deleteItem' is missing in type '{...}'."]);
    const { ok, message } = samplesResult(1, [], elsewhere);
    expect(ok).toBe(false);
    expect(message).toMatch(/^1 error in the code the samples import, not in a sample; fix that code first/);
    expect(message).not.toContain('make each sample');
  });

  it('takes the ```ts blocks of a page, with the line each starts on', () => {
    const page = ['# Title', '', '```ts', 'const a = 1;', '```', '', '```sh', 'npm test', '```', '```typescript', 'let b = 2;', '```'].join('\n');
    expect(markdownSamples('docs/x.md', page)).toEqual([
      { file: 'docs/x.md', line: 4, code: 'const a = 1;\n' },
      { file: 'docs/x.md', line: 11, code: 'let b = 2;\n' },
    ]);
  });

  it("takes a JSDoc @example with the module's exports it names, imported on its first line", () => {
    const source = [
      '/**',
      ' * Does it.',
      ' * @example',
      ' * const x = doIt(1);',
      ' * use(x);',
      ' */',
      'export function doIt(n: number) {',
      '  return n;',
      '}',
    ].join('\n');
    expect(jsdocSamples('src/a/b.ts', source)).toEqual([
      { file: 'src/a/b.ts', line: 4, code: "import { doIt } from '@module/src/a/b.js'; const x = doIt(1);\nuse(x);\n" },
    ]);
  });
});

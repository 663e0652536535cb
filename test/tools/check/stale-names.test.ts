import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readContracts } from '../../../src/contract/project.js';
import { jsdocSamples, markdownSamples, readSampleErrors, samplesResult } from '../../../tools/check/code-samples.js';
import { checkStaleNames } from '../../../tools/check/stale-names.js';

const scratch = mkdtempSync(join(tmpdir(), 'stale-names-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const contracts = readContracts();
const main = contracts.find((contract) => contract.name === 'main')!;

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

  it('names every description and page that still says `desc` once the Sort enum drops it', () => {
    const { problems } = checkStaleNames(edited((text) => text.replace('enum: [asc, desc]', 'enum: [asc]')));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/#\/components\/schemas\/Sort\/description: it names desc, which Sort had at its release/),
        expect.stringMatching(/#\/info\/description: `desc` is no longer in the spec/),
        expect.stringMatching(/^update docs\/what-the-contract-decides\.md:\d+: `desc` is no longer in/),
      ]),
    );
  });

  it("names the Item description's plain-word mention of a renamed field", () => {
    const { problems } = checkStaleNames(
      edited((text) =>
        text
          .replace('required: [id, title, ownerId, createdAt]', 'required: [id, name, ownerId, createdAt]')
          .replace('\n        title:\n', '\n        name:\n'),
      ),
    );
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/#\/components\/schemas\/Item\/description: it names title, which Item had/)]));
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

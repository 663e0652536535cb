import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/contract/project.js';
import { leaseBlock } from '../../../src/http/shared-rate-limit.js';
import { checkSpecCopies, loadSpecs, type Specs } from '../../../tools/check/spec-copies.js';
import { LIMIT } from '../../helpers/spec-fixture.js';

const specs = loadSpecs();
const read = (file: string) => readFileSync(join(projectRoot, file), 'utf8');
/** The public rate limit as the spec has it now, which the edits below raise. */
const requests = (specs.main['x-limits'] as { rateLimit: { requests: number } }).rateLimit.requests;
// The rest the edits below start from, read from the specs too: an edit of the spec itself leaves these tests green.
const maxBodyBytes = (specs.main['x-limits'] as { maxBodyBytes: number }).maxBodyBytes;
const schemas = (spec: object) => (spec as { components: { schemas: Record<string, { enum: never[]; default: never }> } }).components.schemas;
const sortOrders: string[] = schemas(specs.main)['Sort']?.enum ?? [];
const expiries: { enum: number[]; default: number } = schemas(specs.account)['ExpiresInDays'] ?? { enum: [], default: 0 };
const accountLimits = specs.account['x-limits'] as { session: { idleSeconds: number }; keys: { activePerUser: number } };
/** `a, b or c`, as the prose lists values. */
const listed = (values: readonly unknown[]) => `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

/** The specs with one thing changed, as a developer would change it, and the prose left as it is. */
function changed(edit: (copy: Specs & Record<string, any>) => void): Specs {
  const copy = structuredClone(specs) as Specs & Record<string, any>;
  edit(copy);
  return copy;
}

describe('copies of the spec in prose and examples', () => {
  it('agree with the specs as they are', () => {
    const result = checkSpecCopies(specs);
    expect(result.ok, result.message).toBe(true);
  });

  it.each([
    {
      given: 'the public rate limit raised',
      edit: (copy: any) => (copy.main['x-limits'].rateLimit.requests = requests * 2),
      stale: [
        'openapi/openapi.yaml:',
        'docs/what-the-contract-decides.md:',
        'docs/editing-the-contract.md:',
        'docs/server.md:',
        'docs/contract-suite.md:',
        'RateLimit-Limit/example',
        'docs/scaling-out.md:',
        `block = 2% of the quota: ${leaseBlock(requests * 2)} of ${requests * 2}`,
        // A comment that restates the quota goes stale like a page (issue 35: it still said 600 after the change).
        `src/http/shared-rate-limit.ts:`,
      ],
    },
    {
      given: 'the public body limit doubled',
      edit: (copy: any) => (copy.main['x-limits'].maxBodyBytes = maxBodyBytes * 2),
      stale: [`Request bodies up to ${(maxBodyBytes * 2) / 1024} KiB`, `exceeds ${maxBodyBytes * 2} bytes`],
    },
    {
      given: 'a third sort order',
      edit: (copy: any) => copy.main.components.schemas.Sort.enum.push('random'),
      stale: [`Enum ${[...sortOrders, 'random'].map((order) => `\`${order}\``).join(' / ')}`, `'must be one of: ${[...sortOrders, 'random'].join(', ')}'`],
    },
    {
      given: 'a longer page',
      edit: (copy: any) => (copy.main.components.schemas.Limit.maximum = LIMIT.maximum * 2),
      stale: [`\`limit\` (${LIMIT.minimum} to ${LIMIT.maximum * 2}, default ${LIMIT.default})`],
    },
    {
      given: 'a key expiry twice the longest',
      edit: (copy: any) => copy.account.components.schemas.ExpiresInDays.enum.push((expiries.enum.at(-1) as number) * 2),
      stale: [
        `expire (${expiries.enum[0]} to ${(expiries.enum.at(-1) as number) * 2} days)`,
        listed([...expiries.enum, (expiries.enum.at(-1) as number) * 2]),
        `must be one of: ${[...expiries.enum, (expiries.enum.at(-1) as number) * 2].join(', ')}`,
        'README.md:',
        `from the same presets (${[...expiries.enum, (expiries.enum.at(-1) as number) * 2].join(', ')}; default ${expiries.default})`,
      ],
    },
    {
      given: 'a longer idle session',
      edit: (copy: any) => (copy.account['x-limits'].session.idleSeconds = accountLimits.session.idleSeconds + 900),
      stale: [`after ${accountLimits.session.idleSeconds / 60 + 15} minutes without a request`, `after ${accountLimits.session.idleSeconds / 60 + 15} idle`],
    },
    {
      given: 'more active keys',
      edit: (copy: any) => (copy.account['x-limits'].keys.activePerUser = accountLimits.keys.activePerUser + 30),
      stale: [`You have ${accountLimits.keys.activePerUser + 30} active API keys`, `At most ${accountLimits.keys.activePerUser + 30} active keys per user`],
    },
  ])('name each stale copy when $given', ({ edit, stale }) => {
    const result = checkSpecCopies(changed(edit));
    expect(result.ok).toBe(false);
    for (const text of stale) expect(result.message).toContain(text);
    expect(result.problems.every((problem) => problem.startsWith('update '))).toBe(true);
  });

  // Issue 35: `check` offered `npm run fix` for the rate limit, and `fix` then left the header example to a hand.
  it('gives a replacement for every copy it marks as npm run fix writes it, the header example of the rate limit included', () => {
    const result = checkSpecCopies(changed((copy: any) => (copy.main['x-limits'].rateLimit.requests = requests * 2)));
    const written = result.problems.filter((problem) => problem.endsWith('(npm run fix writes it)'));
    expect(
      result.problems.every((problem) => problem.endsWith('(npm run fix writes it)') || problem.endsWith('(by hand)')),
      result.message,
    ).toBe(true);
    expect(written.length).toBe(result.replacements.length);
    expect(result.problems.some((problem) => problem.includes('RateLimit-Limit/example') && problem.endsWith('(npm run fix writes it)'))).toBe(true);
    // Each replacement names the characters it rewrites in the file as checked.
    for (const { file, index, from } of result.replacements) expect(read(file).startsWith(from, index), `${file} at ${index}`).toBe(true);
    const example = result.replacements.find(
      (replacement) => replacement.file === 'openapi/openapi.yaml' && replacement.from === String(requests) && replacement.to === String(requests * 2),
    );
    expect(example, JSON.stringify(result.replacements)).toBeDefined();
  });

  it('checks a comment anywhere in src/ that uses a listed wording, and leaves the code beside it alone', () => {
    const maxBodyBytes = (specs.main['x-limits'] as { maxBodyBytes: number }).maxBodyBytes;
    const copy = `Request bodies up to ${maxBodyBytes / 1024} KiB`;
    const source = [
      `const said = '// ${copy}';`,
      `const pattern = /"'/; // ${copy} (413 above)`,
      `/* ${copy},`,
      ` * even in a block. */`,
      'const template = `${said}`;',
    ].join('\n');
    const texts = (file: string) => (file === 'src/example.ts' ? source : read(file));
    expect(checkSpecCopies(specs, texts, ['src/example.ts']).ok).toBe(true);
    const halved = changed((copy: any) => (copy.main['x-limits'].maxBodyBytes = maxBodyBytes / 2));
    const inExample = checkSpecCopies(halved, texts, ['src/example.ts']).replacements.filter((replacement) => replacement.file === 'src/example.ts');
    // The two comments, each at its own line and place; the string on line 1 is code, not prose.
    expect(inExample.map(({ line, from }) => ({ line, from }))).toEqual([
      { line: 2, from: copy },
      { line: 3, from: copy },
    ]);
    for (const { index, from } of inExample) expect(source.startsWith(from, index)).toBe(true);
    expect(inExample[0]?.to).toBe(`Request bodies up to ${maxBodyBytes / 2048} KiB`);
  });

  it('asks for the check to be pointed at new wording when a copy is reworded', () => {
    const reworded = (file: string) => read(file).replace('Request bodies up to', 'Bodies of at most');
    const result = checkSpecCopies(specs, reworded);
    expect(result.ok).toBe(false);
    expect(result.message).toContain('update tools/check/spec-copies.ts: openapi/openapi.yaml no longer says Request bodies up to');
  });
});

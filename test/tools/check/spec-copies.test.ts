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
      ],
    },
    {
      given: 'the public body limit halved',
      edit: (copy: any) => (copy.main['x-limits'].maxBodyBytes = 4096),
      stale: ['Request bodies up to 4 KiB', 'exceeds 4096 bytes'],
    },
    {
      given: 'a third sort order',
      edit: (copy: any) => copy.main.components.schemas.Sort.enum.push('random'),
      stale: ['Enum `asc` / `desc` / `random`', "'must be one of: asc, desc, random'"],
    },
    {
      given: 'a longer page',
      edit: (copy: any) => (copy.main.components.schemas.Limit.maximum = LIMIT.maximum * 2),
      stale: [`\`limit\` (${LIMIT.minimum} to ${LIMIT.maximum * 2}, default ${LIMIT.default})`],
    },
    {
      given: 'a two-year key expiry',
      edit: (copy: any) => copy.account.components.schemas.ExpiresInDays.enum.push(730),
      stale: [
        'expire (7 to 730 days)',
        '7, 30, 60, 90, 365 or 730',
        'must be one of: 7, 30, 60, 90, 365, 730',
        'README.md:',
        'from the same presets (7, 30, 60, 90, 365, 730; default 30)',
      ],
    },
    {
      given: 'a shorter idle session',
      edit: (copy: any) => (copy.account['x-limits'].session.idleSeconds = 900),
      stale: ['after 15 minutes without a request', 'after 15 idle'],
    },
    {
      given: 'more active keys',
      edit: (copy: any) => (copy.account['x-limits'].keys.activePerUser = 50),
      stale: ['You have 50 active API keys', 'At most 50 active keys per user'],
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

  it('asks for the check to be pointed at new wording when a copy is reworded', () => {
    const reworded = (file: string) => read(file).replace('Request bodies up to', 'Bodies of at most');
    const result = checkSpecCopies(specs, reworded);
    expect(result.ok).toBe(false);
    expect(result.message).toContain('update tools/check/spec-copies.ts: openapi/openapi.yaml no longer says Request bodies up to');
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatUnformatted, unformattedFiles } from '../../../tools/fix/format.js';

const root = mkdtempSync(join(tmpdir(), 'fix-format-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm run fix: the formatter, on the files Biome says are unformatted', () => {
  it("reads the files to format from Biome's report, and no file of another diagnostic", () => {
    const report = {
      diagnostics: [
        { severity: 'error', category: 'format', location: { path: 'src/a.ts' } },
        { severity: 'error', category: 'format', location: { path: 'src/a.ts' } },
        { severity: 'error', category: 'parse', location: { path: 'src/broken.ts' } },
        { severity: 'error', category: 'format', location: { path: 'src/broken.ts' } },
        { severity: 'warning', category: 'lint/style/noNonNullAssertion', location: { path: 'src/b.ts' } },
      ],
    };
    expect(unformattedFiles(JSON.stringify(report))).toEqual(['src/a.ts']);
  });

  it('formats an unformatted file, leaves a formatted one and one that does not parse as they were', async () => {
    writeFileSync(join(root, 'biome.json'), `${JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 2 } }, null, 2)}\n`);
    writeFileSync(join(root, 'messy.ts'), 'export const   a = {b:1};\n');
    const tidy = 'export const c = { d: 1 };\n';
    writeFileSync(join(root, 'tidy.ts'), tidy);
    const broken = 'export const = ;\n';
    writeFileSync(join(root, 'broken.ts'), broken);
    const result = await formatUnformatted(root);
    expect(result).toEqual({ formatted: ['messy.ts'] });
    expect(readFileSync(join(root, 'messy.ts'), 'utf8')).toBe('export const a = { b: 1 };\n');
    expect(readFileSync(join(root, 'tidy.ts'), 'utf8')).toBe(tidy);
    expect(readFileSync(join(root, 'broken.ts'), 'utf8')).toBe(broken);
  });
});

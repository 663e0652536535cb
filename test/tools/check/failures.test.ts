import { describe, expect, it } from 'vitest';
import { failuresOf, leadLines } from '../../../tools/check/failures.js';
import { failureReport } from '../../../tools/check/run-checks.js';

describe('what a failed step says failed, each with its fix', () => {
  // Issue 35: a broken header example was headlined "npm run generate", the fix of the drift it causes.
  it('leads with a broken example, not the drift it causes, and gives each its own fix', () => {
    const output = [
      'drift: FAILED, generated/openapi.d.ts differs from what openapi/openapi.yaml produces (first at line 309: expected "* @example many").',
      'Run `npm run generate` and commit the result.',
      'examples: FAILED, 1 header or parameter example in openapi/openapi.yaml breaks its schema:',
      '  openapi/openapi.yaml:538: header RateLimit-Limit (#/components/headers/RateLimit-Limit/example): "many" must be integer',
    ].join('\n');
    const lines = leadLines('check:contracts', failuresOf(output));
    expect(lines[0]).toBe('FAILED check:contracts: examples: FAILED, 1 header or parameter example in openapi/openapi.yaml breaks its schema:');
    expect(lines[1]).toMatch(/^ {4}openapi\/openapi\.yaml:538: header RateLimit-Limit/);
    expect(lines[2]).toMatch(/^ {2}fix: change each example named above \(or its schema\)/);
    expect(lines[3]).toMatch(/^ {2}drift: FAILED/);
    expect(lines[4]).toBe('  fix: npm run generate (or npm run fix, which also does the rest below)');
    expect(lines).toHaveLength(5);
  });

  // Issue 35: a formatting error was headlined by a warning in src/cli/exit.ts, and came with no format:fix.
  it("leads Biome's report with its error, not the warnings printed before it, with npm run format:fix", () => {
    const output = [
      'src/cli/exit.ts:48:89 lint/suspicious/noConfusingVoidType  FIXABLE  ━━━━━━━━━━',
      '',
      '  ! void is confusing inside a union type.',
      '    48 │ export async function runCli(name: string, main: () => number | void): Promise<void> {',
      'src/server/operations.ts format ━━━━━━━━━━━━━━━━━━━━',
      '',
      '  × Formatter would have printed the following content:',
      "    1   │ - import   type { components } from '../contract/types.js'; // samples: FAILED",
      'Checked 601 files in 8s. No fixes applied.',
      'Found 1 error.',
      'Found 27 warnings.',
    ].join('\n');
    expect(leadLines('check:code', failuresOf(output))).toEqual([
      'FAILED check:code: src/server/operations.ts format: Formatter would have printed the following content:',
      '  fix: npm run format:fix (npm run fix runs the formatter too)',
    ]);
  });

  it("puts errors before warnings, and says a run's shared fix once, after it", () => {
    const output = [
      'openapi/openapi.yaml:360:13 warning owasp:api4:2023-string-restricted Schema of type string should specify a format, pattern, enum, or const.',
      'openapi/openapi.yaml:530:16 error no-invalid-parameter-examples Example value must conform to the schema.',
      'lint: redocly lint failed (exit code 1)',
    ].join('\n');
    expect(leadLines('lint', failuresOf(output))).toEqual([
      'FAILED lint: openapi/openapi.yaml:530:16 error no-invalid-parameter-examples Example value must conform to the schema.',
      '  openapi/openapi.yaml:360:13 warning owasp:api4:2023-string-restricted Schema of type string should specify a format, pattern, enum, or const.',
      '  fix: edit the spec at the place named above (npm run lint runs the linters alone)',
    ]);
  });

  it('leads with a spec that does not parse, before the checks it breaks, none of them offered npm run fix', () => {
    const output = [
      'diff main: FAILED, redocly diff openapi/released/openapi.yaml openapi/openapi.yaml failed (exit code 1):',
      'copies: FAILED, Flow sequence in block collection must be sufficiently indented and end with a ] at line 94, column 5:',
      'examples, drift and limits main: FAILED, missed comma between flow collection entries in "/tmp/c1/openapi/openapi.yaml" (94:5)',
    ].join('\n');
    const lines = leadLines('check:contracts', failuresOf(output));
    expect(lines[0]).toMatch(/^FAILED check:contracts: copies: FAILED, Flow sequence/);
    expect(lines[2]).toBe('  fix: fix the YAML at the line named above (npm run lint names it)');
    expect(lines.join('\n')).not.toContain('npm run fix');
  });

  it('cuts at a limit without losing a fix, and cuts nothing without one', () => {
    const copies = [
      'copies: FAILED, 9 copies are stale:',
      ...Array.from({ length: 9 }, (_, n) => `  update docs/page-${n}.md:1: "600" (npm run fix writes it)`),
    ];
    const output = [...copies, 'names: FAILED, 1 place names a dropped field:', '  docs/x.md:3: `title` is no longer in openapi.yaml'].join('\n');
    const cut = leadLines('check:contracts', failuresOf(output), 6);
    expect(cut.filter((line) => !line.startsWith('  fix:') && !line.startsWith('  ...'))).toHaveLength(6);
    expect(cut).toContain('  ... and 6 more below');
    expect(cut.filter((line) => line.startsWith('  fix:'))).toEqual([
      '  fix: npm run fix (writes each copy marked "npm run fix writes it" above; those marked "by hand" are yours)',
      '  fix: reword each place named above: the spec no longer has that name',
    ]);
    const whole = leadLines('check:contracts', failuresOf(output));
    expect(whole.filter((line) => line.includes('update docs/page-'))).toHaveLength(9);
    expect(whole.some((line) => line.includes('more below'))).toBe(false);
  });

  it('after npm run fix has run, offers it no more for what it does, but what is left of it', () => {
    const output = 'copies: FAILED, 1 copy is stale:\n  update docs/x.md:4: "at most 600" (by hand)';
    const [result] = [{ name: 'check:contracts', ok: false, seconds: 1, output }];
    expect(failureReport([result], {}).join('\n')).toContain('fix: npm run fix');
    const after = failureReport([result], { afterFix: true });
    expect(after.join('\n')).not.toContain('npm run fix (');
    expect(after.at(-1)).toBe('  fix: reword each copy marked "by hand" above: it has no single value npm run fix could write');
  });

  it('reads a typecheck error in the pretty format TypeScript 7 writes to a pipe, colours taken off', () => {
    const output =
      "src/zz.ts:1:14 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n1 export const x: number = 'a';\n\nFound 1 error in src/zz.ts:1";
    expect(leadLines('typecheck', failuresOf(output))).toEqual([
      "FAILED typecheck: src/zz.ts:1:14 - error TS2322: Type 'string' is not assignable to type 'number'.",
      '  fix: fix the code at the place named above (npm run typecheck runs the typecheck alone)',
    ]);
  });
});

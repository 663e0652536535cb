import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSteps, formatChecks, readScripts, runChecks } from '../../../tools/check/run-checks.js';

const scratch = mkdtempSync(join(tmpdir(), 'check-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run check, its steps at once', () => {
  it('runs every step even when one fails, at the same time, and reports each in the order given', async () => {
    // Each of the two waits (up to 10 s) for the other to have started: run one after the other, both would fail.
    const waitFor = (other: string) =>
      `touch ${other === 'b' ? 'a' : 'b'}.started; for i in $(seq 100); do [ -f ${other}.started ] && echo ${other} seen && exit 0; sleep 0.1; done; exit 1`;
    const scripts = { slow: waitFor('b'), broken: "echo 'spec.yaml:3 wrong' >&2; exit 3", fast: waitFor('a') };
    const results = await runChecks(['slow', 'broken', 'fast'], scripts, scratch);
    expect(results.map(({ name, ok }) => [name, ok])).toEqual([
      ['slow', true],
      ['broken', false],
      ['fast', true],
    ]);
    const { stdout, stderr } = formatChecks(results, 0.7);
    expect(stdout).toMatch(/^FAILED broken: spec.yaml:3 wrong\n\nok {4}slow .*\nFAIL {2}broken .*\nok {4}fast .*\ncheck: 1 of 3 failed in 0\.7 s/);
    expect(stderr).toContain('── broken (npm run broken) failed:\nspec.yaml:3 wrong');
    expect(stderr).not.toContain('seen');
  });

  it('skips a step whose pass cache says its inputs are unchanged, and records the pass of one that passed, never of one that failed', async () => {
    const recorded: string[] = [];
    const cache = (name: string, unchanged: boolean) => ({ unchanged, recordPass: () => recorded.push(name) });
    const scripts = { cached: 'exit 7', stale: 'echo ran', failing: 'exit 1', plain: 'echo plain' };
    const caches: Record<string, { unchanged: boolean; recordPass(): void }> = {
      cached: cache('cached', true),
      stale: cache('stale', false),
      failing: cache('failing', false),
    };
    const results = await runChecks(['cached', 'stale', 'failing', 'plain'], scripts, scratch, (name) => caches[name]);
    expect(results.map(({ name, ok, skipped }) => [name, ok, skipped === true])).toEqual([
      ['cached', true, true],
      ['stale', true, false],
      ['failing', false, false],
      ['plain', true, false],
    ]);
    expect(recorded).toEqual(['stale']);
    expect(formatChecks(results, 1).stdout).toMatch(/\nok {4}cached +its inputs are unchanged since its last pass\nok {4}stale +\d/);
  });

  it('leads with what failed and the command that fixes it, before the lines of the checks that passed', () => {
    const output = [
      'diff: ok, openapi/openapi.yaml against its release 1.0.0; nothing breaks a client',
      '  accepted: modified POST / requestBody ... because ...',
      'drift: FAILED, generated/openapi.d.ts differs from what openapi/openapi.yaml produces (first at line 9).',
      'Run `npm run generate` and commit the result.',
      'copies: ok, 75 copies agree',
    ].join('\n');
    const { stdout, stderr } = formatChecks([{ name: 'check:contracts', ok: false, seconds: 1, output }], 1);
    expect(stdout.split('\n').slice(0, 2)).toEqual([
      'FAILED check:contracts: drift: FAILED, generated/openapi.d.ts differs from what openapi/openapi.yaml produces (first at line 9).',
      '  fix: npm run generate (or npm run fix, which also does the rest below)',
    ]);
    expect(stderr.indexOf('drift: FAILED')).toBeLessThan(stderr.indexOf('accepted:'));
  });

  it('names the fix of each failure beside it, the one it leads with first', () => {
    // A breaking change and a sample it broke: the lead is the gate's, so is the first fix (it named the samples' before).
    const output = [
      'diff: FAILED, openapi/openapi.yaml against its release 1.0.0 (openapi/released/openapi.yaml): changes 4 major. This change can break clients built against 1.0.0:',
      '  modified POST / requestBody/content/application/json/schema · required at openapi/openapi.yaml:353',
      '  accepted: modified POST / requestBody/content/application/json/schema/properties/limit · format, because ...',
      'samples: FAILED, 1 error in the TypeScript samples; make each sample say what the spec says now:',
      "  src/client/README.md:16: Property 'sort' is missing",
    ].join('\n');
    const lines = formatChecks([{ name: 'check:contracts', ok: false, seconds: 1, output }], 1).stdout.split('\n');
    expect(lines[0]).toMatch(/^FAILED check:contracts: diff: FAILED/);
    expect(
      lines.filter((line) => line.includes('accepted:')),
      'the accepted changes are not what failed',
    ).toEqual([]);
    expect(lines.filter((line) => line.startsWith('  fix:'))).toEqual([
      "  fix: make the change compatible, or raise info.version's major and list what breaks in CHANGELOG.md (both ways are spelled out below)",
      '  fix: make each sample named above say what the spec says now',
    ]);
    expect(lines.indexOf('  fix: make each sample named above say what the spec says now')).toBeGreaterThan(
      lines.findIndex((line) => line.startsWith('  samples: FAILED')),
    );
    // An error listed under its check's FAILED and again on its own is led with once.
    const twice = [
      'samples: FAILED, 1 error in the code the samples import:',
      '  src/client/index.ts(1,1): error TS2741: x',
      'src/client/index.ts(1,1): error TS2741: x',
    ];
    expect(formatChecks([{ name: 'check:contracts', ok: false, seconds: 1, output: twice.join('\n') }], 1).stdout.match(/error TS2741/g)).toHaveLength(1);
    // A spec that does not parse fails the copies check too; npm run fix cannot mend YAML.
    const unparsable = 'copies: FAILED, Nested mappings are not allowed in compact mappings at line 132, column 16:';
    expect(formatChecks([{ name: 'check:contracts', ok: false, seconds: 1, output: unparsable }], 1).stdout).toContain(
      '  fix: fix the YAML at the line named above (npm run lint names it)',
    );
  });

  it("takes the colours off a step's output, which TypeScript 7 prints even to a pipe, so its errors can be read", async () => {
    const [result] = await runChecks(
      ['pretty'],
      { pretty: "printf '\\033[96msrc/a.ts\\033[0m:1:2 - \\033[91merror\\033[0m\\033[90m TS2322: \\033[0mwrong\\n'; exit 2" },
      scratch,
    );
    expect(result?.output).toBe('src/a.ts:1:2 - error TS2322: wrong\n');
    expect(formatChecks(result ? [result] : [], 1).stdout).toMatch(/^FAILED pretty: src\/a\.ts:1:2 - error TS2322: wrong\n {2}fix: fix the code/);
  });

  // Issue 35: Biome's "Diagnostics not shown: 7" hid a formatting error behind twenty warnings.
  it('runs Biome with no limit on what it prints', () => {
    const biome = readScripts()['check:code'] ?? '';
    expect(checkSteps()).toContain('check:code');
    expect(biome).toMatch(/^biome check /);
    expect(biome).toContain('--max-diagnostics=none');
  });

  it("finds the project's own binaries first on PATH, as npm run does", async () => {
    const [result] = await runChecks(['which'], { which: 'command -v biome' });
    expect(result?.output.trim()).toMatch(/node_modules\/\.bin\/biome$/);
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readContractPaths } from '../../../src/contract/project.js';
import { checkValueExamples } from '../../../tools/check/examples-check.js';
import { tsxCommand } from '../../../tools/process/commands.js';
import { runCommand } from '../../../tools/process/run-command.js';
import { editSpec } from '../../helpers/spec-edits.js';
import { LIMIT } from '../../helpers/spec-fixture.js';

const FIXTURE = fileURLToPath(import.meta.url);
const paths = readContractPaths();
const original = readFileSync(paths.spec, 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'examples-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the spec with the edits applied, and the 1-based line of the first edit. */
function specCopy(name: string, edits: Array<[RegExp, string]>): { file: string; line: number } {
  const file = join(scratch, `${name}.yaml`);
  const edited = editSpec(original, edits, FIXTURE);
  writeFileSync(file, edited);
  const firstChange = [...edited].findIndex((char, index) => char !== original[index]);
  return { file, line: edited.slice(0, firstChange).split('\n').length };
}

describe('the header and parameter examples check', () => {
  it('passes on the spec', () => {
    const result = checkValueExamples(paths.spec);
    expect(result.ok, result.message).toBe(true);
    expect(result.message).toMatch(/^\d+ header and parameter examples in openapi\/openapi\.yaml match their schemas$/);
  });

  it('fails on a spec that does not parse with its line, not a stack trace (npm run dev meets one saved mid-check)', () => {
    const { file } = specCopy('unparsable', [[/( {6}summary: [^\n:]+)\n/, '$1: mine\n']]);
    const result = checkValueExamples(file);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([expect.stringMatching(new RegExp(`^${file}: does not parse: .* at line \\d+, column \\d+$`))]);
    expect(result.message).toContain('Fix the YAML at that line');
  });

  it('fails on a header example that breaks its schema, naming the header, the file and line, and the fix', () => {
    const { file, line } = specCopy('header', [[/(\n {4}RateLimit-Limit:\n(?: {6}.*\n)*? {6}example:) \d+/, '$1 many']]);
    const result = checkValueExamples(file);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([`${file}:${line}: header RateLimit-Limit (#/components/headers/RateLimit-Limit/example): "many" must be integer`]);
    expect(result.message).toContain('Fix the example (or the schema) at that line');
  });

  it('finds a header declared inline in a response', () => {
    const { file } = specCopy('inline-header', [
      [/(\n {8}RateLimit-Remaining:\n {10}description: .*; 0 on this answer\.\n(?: {10}.*\n)*? {10}example:) 0/, '$1 -1'],
    ]);
    expect(checkValueExamples(file).problems).toEqual([
      expect.stringMatching(
        /:\d+: header RateLimit-Remaining \(#\/components\/responses\/TooManyRequests\/headers\/RateLimit-Remaining\/example\): -1 must be >= 0$/,
      ),
    ]);
  });

  it('finds a parameter example', () => {
    const { file } = specCopy('parameter', [[/(\n {6}name: limit\n(?: {6}.*\n)*? {6}example:) 2/, '$1 1000']]);
    expect(checkValueExamples(file).problems).toEqual([
      expect.stringMatching(
        new RegExp(`:\\d+: parameter limit \\(query\\) \\(#/components/parameters/LimitQuery/example\\): 1000 must be <= ${LIMIT.maximum}$`),
      ),
    ]);
  });

  it('reads examples as the strings headers are, so a quoted "600" is an integer', () => {
    const { file } = specCopy('quoted', [[/(\n {4}RateLimit-Limit:\n(?: {6}.*\n)*? {6}example:) (\d+)/, "$1 '$2'"]]);
    expect(checkValueExamples(file)).toMatchObject({ ok: true });
  });

  it('exits 1 from the command line, with the fix on stderr', async () => {
    const { file } = specCopy('cli', [[/(\n {4}RateLimit-Limit:\n(?: {6}.*\n)*? {6}example:) \d+/, '$1 many']]);
    const result = await runCommand(tsxCommand('tools/check/check-examples.ts', ['--spec', file]));
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toMatch(/examples: FAILED, .*\n {2}.*header RateLimit-Limit .*"many" must be integer\nFix the example/);
  });
});

/**
 * Issue 35's promise for the most ordinary spec edit, on a whole copy of the project: the public rate limit raised in
 * the spec as an editor leaves it, `npm run fix`, then the whole `npm test`, green with no test edited. Before, six
 * tests in three files looked for 600, and fix left the header example to a hand while check offered fix for it.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../../tools/process/run-command.js';
import { editFile } from './helpers/spec-edits.js';

/** What a checkout has that a copy must not: history, installed packages (linked instead), build output, local data. */
const LEFT_OUT = ['.git', 'node_modules', 'dist', 'data', 'coverage', '.tmp', join('tools', 'node_modules'), join('tools', 'bench', 'results')];

const root = mkdtempSync(join(tmpdir(), 'edit-rate-limit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the rate limit raised in the spec, npm run fix, then npm test', () => {
  it('is green with no test edited', async () => {
    const kept = (source: string) => !LEFT_OUT.some((left) => relative(join(projectRoot, left), source).split(sep)[0] !== '..');
    for (const entry of readdirSync(projectRoot))
      if (kept(join(projectRoot, entry))) cpSync(join(projectRoot, entry), join(root, entry), { recursive: true, filter: kept });
    for (const modules of ['node_modules', join('tools', 'node_modules')]) symlinkSync(join(projectRoot, modules), join(root, modules));

    const before = Number(/\n {2}rateLimit:\n {4}requests: (\d+)/.exec(readFileSync(join(root, 'openapi/openapi.yaml'), 'utf8'))?.[1]);
    expect(before, 'x-limits.rateLimit.requests of openapi.yaml: update this test to where the limit is written').toBeGreaterThan(0);
    editFile(root, 'openapi/openapi.yaml', `\n  rateLimit:\n    requests: ${before}\n`, `\n  rateLimit:\n    requests: ${before * 2}\n`);

    const env = { CHECK_CACHE: 'off', FORCE_COLOR: '0', NO_COLOR: '1' };
    const fixed = await runCommand(['npm', 'run', 'fix'], { cwd: root, env, timeoutMs: 300_000 });
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain('fix: done, and npm run check passes');
    expect(readFileSync(join(root, 'openapi/openapi.yaml'), 'utf8')).toContain(`example: ${before * 2}`);

    const tested = await runCommand(['npm', 'test'], { cwd: root, env, timeoutMs: 900_000 });
    expect(tested.code, tested.stdout.slice(-6000) + tested.stderr.slice(-3000)).toBe(0);
  }, 1_260_000);
});

/**
 * Issue 35's promise: after each ordinary edit (`helpers/user-edits.ts`), made in a whole copy of the project as a
 * developer makes it, `npm run fix` and then the whole `npm test` (which starts with `npm run check`) are green with
 * no test edited. A test that pins what the spec decides reads it from the spec; one that cannot says, in one
 * line, which fixture to update and why.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../../tools/process/run-command.js';
import { USER_EDITS } from './helpers/user-edits.js';

/** What a checkout has that a copy must not: history, installed packages (linked instead), build output, local data. */
const LEFT_OUT = ['.git', 'node_modules', 'dist', 'data', 'coverage', '.tmp', join('tools', 'node_modules'), join('tools', 'bench', 'results')];

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** The whole project as a developer has it, tests included, with its packages linked. */
function wholeCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'user-edit-'));
  roots.push(root);
  const kept = (source: string) => !LEFT_OUT.some((left) => relative(join(projectRoot, left), source).split(sep)[0] !== '..');
  for (const entry of readdirSync(projectRoot))
    if (kept(join(projectRoot, entry))) cpSync(join(projectRoot, entry), join(root, entry), { recursive: true, filter: kept });
  for (const modules of ['node_modules', join('tools', 'node_modules')]) symlinkSync(join(projectRoot, modules), join(root, modules));
  return root;
}

const ENV = { CHECK_CACHE: 'off', FORCE_COLOR: '0', NO_COLOR: '1' };

describe('each ordinary edit, then npm run fix and npm test, on a whole copy of the project', () => {
  it.each(USER_EDITS.map((edit) => [edit.name, edit] as const))(
    '%s: green with no test edited',
    async (_name, edit) => {
      const root = wholeCopy();
      edit.apply(root);
      const fixed = await runCommand(['npm', 'run', 'fix'], { cwd: root, env: ENV, timeoutMs: 300_000 });
      expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
      expect(fixed.stdout).toContain('fix: done, and npm run check passes');
      const tested = await runCommand(['npm', 'test'], { cwd: root, env: ENV, timeoutMs: 900_000 });
      if (tested.code === 0) return;
      // Ten whole runs of npm test make a timing flake of one file ten times as likely to fail this test. `check`
      // passed (vitest ran) and every failed file passes when run again: a flake, said on stderr, not a pinned spec.
      // A test that pins what the edit changed fails again, and fails this test with the first run's output.
      // Vitest lists the failed tests on stderr and its totals on stdout.
      const output = `${tested.stdout}\n${tested.stderr}`;
      const failed = [...new Set([...output.matchAll(/^ FAIL +\|default\| (\S+\.test\.ts)/gm)].map(([, file]) => file as string))];
      const again =
        failed.length > 0 && /Test Files /.test(output)
          ? await runCommand(['npx', 'vitest', 'run', '--project', 'default', ...failed], { cwd: root, env: ENV, timeoutMs: 300_000 })
          : undefined;
      expect(again?.code, tested.stdout.slice(-6000) + tested.stderr.slice(-3000)).toBe(0);
      process.stderr.write(`${edit.name}: ${failed.join(', ')} failed in npm test and passed when run again (a flake, not the edit)\n`);
    },
    1_260_000,
  );
});

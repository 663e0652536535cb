/**
 * Issue 35: `npm run fix` said "done; npm run check should pass now" while Spectral failed on a new string field, and
 * with three broken examples it never named them. On a whole copy of the project, edited as an editor leaves it, fix
 * must do what it can (the formatter included) and list everything else `check` fails on, each with its fix, none cut.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/contract/project.js';
import { runCommand } from '../../../tools/process/run-command.js';
import { editFile } from '../../e2e/helpers/spec-edits.js';

/** What a checkout has that a copy must not: history, installed packages (linked instead), build output, local data. */
const LEFT_OUT = ['.git', 'node_modules', 'dist', 'data', 'coverage', '.tmp', join('tools', 'node_modules'), join('tools', 'bench', 'results')];

const root = mkdtempSync(join(tmpdir(), 'fix-tells-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm run fix after edits it cannot finish', () => {
  it('formats what it can, and lists every example, lint finding and step check still fails on, each with its fix', async () => {
    const kept = (source: string) => !LEFT_OUT.some((left) => relative(join(projectRoot, left), source).split(sep)[0] !== '..');
    for (const entry of readdirSync(projectRoot))
      if (kept(join(projectRoot, entry))) cpSync(join(projectRoot, entry), join(root, entry), { recursive: true, filter: kept });
    for (const modules of ['node_modules', join('tools', 'node_modules')]) symlinkSync(join(projectRoot, modules), join(root, modules));

    const spec = 'openapi/openapi.yaml';
    editFile(root, spec, /(\n {4}RateLimit-Remaining:\n(?: {6}.*\n)*? {6}example:) \d+\n/, '$1 -5\n');
    editFile(root, spec, /(\n {4}X-Request-Id:\n(?: {6}.*\n)*? {6}example:) \S+\n/, '$1 not-a-uuid\n');
    editFile(root, spec, /(\n {4}CursorQuery:\n(?: {6}.*\n)*? {6}example:) \S+\n/, "$1 'not a cursor!'\n");
    // A body field as a developer first writes it: no pattern, which the OWASP ruleset asks for.
    editFile(
      root,
      spec,
      /(\n {4}ListRequest:\n(?: {6}.*\n)*? {10}\$ref: '#\/components\/schemas\/Cursor'\n)/,
      '$1        tag:\n          type: string\n          description: Only the items with this tag.\n          maxLength: 40\n',
    );
    const code = 'src/server/operations.ts';
    const tidy = readFileSync(join(root, code), 'utf8');
    editFile(root, code, /^import (.*);$/m, 'import   $1;');

    const fixed = await runCommand(['npm', 'run', '--silent', 'fix'], { cwd: root, env: { CHECK_CACHE: 'off', FORCE_COLOR: '0' }, timeoutMs: 600_000 });
    const report = fixed.stdout;
    expect(fixed.code, report + fixed.stderr).toBe(1);
    expect(report).not.toContain('npm run check passes');
    expect(report).toContain(`fix: ${code} formatted`);
    expect(readFileSync(join(root, code), 'utf8')).toBe(tidy);
    // Every broken example, by its line, and its fix.
    for (const subject of [
      /openapi\.yaml:\d+: header RateLimit-Remaining .*-5 must be >= 0/,
      /openapi\.yaml:\d+: header X-Request-Id .*not-a-uuid/,
      /openapi\.yaml:\d+: parameter cursor/,
    ])
      expect(report).toMatch(subject);
    expect(report).toMatch(/examples: FAILED[\s\S]*\n {4}fix: change each example named above/);
    // The lint: Redocly's error on the cursor example before Spectral's warning on the new field, with the fix after both.
    const lint = report.slice(report.indexOf('FAILED lint:'));
    expect(lint).toMatch(/^FAILED lint: openapi\/openapi\.yaml:\d+:\d+ error no-invalid-parameter-examples /);
    expect(lint).toMatch(
      /\n {4}openapi\/openapi\.yaml:\d+:\d+ warning owasp:api4:2023-string-restricted [^\n]*\n {4}fix: edit the spec at the place named above/,
    );
    // Nothing it has just done is offered as its fix, and nothing is cut.
    expect(report).not.toMatch(/fix: npm run fix \(/);
    expect(report).not.toContain('more below');
    expect(report.trimEnd().split('\n').at(-1)).toBe('fix: done what it could; the rest above is yours (npm run check shows it again)');
  }, 900_000);
});

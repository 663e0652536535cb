import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

/**
 * What a copy needs to lint, generate, diff, typecheck, check (`npm run check`, which `npm run fix` ends with: Biome's
 * config and the ignore file it reads) and serve: the contract, its config and release notes, the code, its tools, its
 * types and `bin/` (the built launcher, and the type checker vitest runs).
 */
const COPIED = [
  'redocly.yaml',
  '.spectral.yaml',
  'package.json',
  'tsconfig.json',
  // The server's files alone, which the dev loop typechecks first (and `npm run build` compiles).
  'tsconfig.build.json',
  'biome.jsonc',
  '.gitignore',
  'CHANGELOG.md',
  'openapi',
  'generated',
  'src',
  'tools',
  'bin',
];
/** Left out of the copy: installed packages (linked instead) and the bench's results. */
const NOT_COPIED = ['node_modules', join('tools', 'node_modules'), join('tools', 'bench', 'results')];

/**
 * A throwaway copy of the project (dependencies linked, not copied), for tests that
 * edit the spec or the code and watch what a command does about it. A command run
 * from the copy's `src/` or `tools/` finds the copy as its project root.
 */
export function copyProject(prefix = 'project-copy-'): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const copied = (source: string) => !NOT_COPIED.some((left) => relative(join(projectRoot, left), source).split(sep)[0] !== '..');
  for (const entry of COPIED) cpSync(join(projectRoot, entry), join(root, entry), { recursive: true, filter: copied });
  // The tools' workspace keeps here what npm could not hoist to the root's node_modules.
  for (const modules of ['node_modules', join('tools', 'node_modules')])
    if (existsSync(join(projectRoot, modules))) symlinkSync(join(projectRoot, modules), join(root, modules));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

/** What a copy needs to lint, generate, diff, typecheck and serve: the contract, its config and release notes, the code and its types. */
const COPIED = ['redocly.yaml', 'package.json', 'tsconfig.json', 'CHANGELOG.md', 'openapi', 'generated', 'src'];

/**
 * A throwaway copy of the project (dependencies linked, not copied), for tests that
 * edit the spec or the code and watch what a command does about it. A command run
 * from the copy's `src/` finds the copy as its project root.
 */
export function copyProject(prefix = 'project-copy-'): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  for (const entry of COPIED) cpSync(join(projectRoot, entry), join(root, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Remembers that a check passed on exactly these inputs, as ESLint's `--cache` does, so that
 * `npm run check` on a tree whose specs did not change skips the checks that read only the specs
 * (Spectral alone costs about 2.7 s of CPU). The key is a SHA-256 of every input file's path and
 * bytes (directories walked in full), so any edit, a new file, a removed one, or a tool upgrade
 * (`package-lock.json` is an input of each) runs the check again. Only a pass is remembered: a
 * failing check runs every time. `CHECK_CACHE=off` turns it off; a fresh clone (CI) has none.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

export interface PassCache {
  /** The inputs are byte for byte those of the last pass. */
  readonly unchanged: boolean;
  /** Call once the check has passed. */
  recordPass(): void;
}

/**
 * The pass cache of check `name` over `inputs` (files or directories, relative to the project root),
 * leaving out what lies under `exclude` (git-ignored output such as `tools/bench/results`).
 */
export function passCache(
  name: string,
  inputs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  root = projectRoot,
  exclude: readonly string[] = [],
): PassCache {
  if (env['CHECK_CACHE'] === 'off') return { unchanged: false, recordPass: () => undefined };
  const file = join(root, 'node_modules', '.cache', 'checks', `${name}.sha256`);
  const key = hashInputs(inputs, root, exclude);
  return {
    unchanged: existsSync(file) && readFileSync(file, 'utf8') === key,
    recordPass() {
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, key);
    },
  };
}

function hashInputs(inputs: readonly string[], root: string, exclude: readonly string[]): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    const label = relative(root, path);
    if (exclude.some((excluded) => label === excluded || label.startsWith(`${excluded}/`))) return;
    if (!existsSync(path)) {
      hash.update(`missing ${label}\0`);
      return;
    }
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) if (entry !== 'node_modules' && entry !== '.git') add(join(path, entry));
      return;
    }
    hash.update(`file ${label}\0`).update(readFileSync(path)).update('\0');
  };
  for (const input of [...inputs].sort()) add(join(root, input));
  return hash.digest('hex');
}

/**
 * The previous release's code, taken from git history: the newest commit whose schema policy
 * (`src/store/schema-policy.ts`) has one version fewer than this code's. Extracted with `git archive`
 * into a temporary folder, with this checkout's `node_modules` linked, so its server runs as it shipped.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { projectRoot } from '../../src/contract/project.js';

const POLICY = 'src/store/schema-policy.ts';
const VERSION_ENTRY = /^\s*\{ version: \d+, oldestCode: \d+,/gm;

/** The commit that last carried `version - 1` schema versions, or a message saying why there is none (a shallow clone). */
export function releaseBefore(version: number): { commit: string } | { missing: string } {
  const git = (args: string[]) => execaSync('git', args, { cwd: projectRoot, reject: false });
  const log = git(['log', '--format=%H', '--', POLICY]);
  if (log.exitCode !== 0) return { missing: `git log failed: ${log.stderr}` };
  for (const commit of log.stdout.split('\n').filter(Boolean)) {
    const file = git(['show', `${commit}:${POLICY}`]);
    if (file.exitCode === 0 && (file.stdout.match(VERSION_ENTRY) ?? []).length === version - 1) return { commit };
  }
  return { missing: `no commit in this clone's history has ${POLICY} with ${version - 1} versions (a shallow clone? git fetch --unshallow)` };
}

/** The tree of `commit`, runnable: a temporary folder to remove when done. */
export function extractCommit(commit: string): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), `release-${commit.slice(0, 8)}-`));
  const archive = join(root, 'tree.tar');
  execaSync('git', ['archive', '--output', archive, commit], { cwd: projectRoot });
  execaSync('tar', ['-xf', archive, '-C', root]);
  rmSync(archive);
  for (const modules of ['node_modules', join('tools', 'node_modules')]) symlinkSync(join(projectRoot, modules), join(root, modules));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

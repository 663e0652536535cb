/**
 * The artefact `npm run build` makes, built again only when it is older than what it is made from: `start:cluster`
 * runs what operators deploy (`dist/`), and a trial after an edit of `src/` or the spec must not run yesterday's build.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { tsxCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';

/** What the artefact is made from: a change to any file here makes `dist/` stale. */
const SOURCES = ['src', 'openapi', 'tsconfig.build.json', 'package-lock.json'];
/** The file whose age stands for the build's (the build writes it after compiling). */
const BUILT = 'dist/src/build-info.json';

/** The newest modification time under `path`, a file or a folder. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stat.mtimeMs);
}

/** Whether `dist/` is missing or older than one of its sources. */
export function buildIsStale(root: string = projectRoot): boolean {
  const built = join(root, BUILT);
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return SOURCES.some((source) => existsSync(join(root, source)) && newest(join(root, source)) > builtAt);
}

/** Runs `npm run build` when `dist/` is stale; says so on `say`. Throws with the build's output when it fails. */
export async function ensureFreshBuild(say: (line: string) => void): Promise<void> {
  if (!buildIsStale()) return;
  say('dist/ is missing or older than src/: npm run build');
  const build = await runCommand(tsxCommand('tools/build/main.ts'), { cwd: projectRoot, timeoutMs: 300_000 });
  if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
}

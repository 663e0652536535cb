/**
 * Which release an instance runs, told the same way everywhere an operator looks (issue 32 point 4): the
 * `build_info` metric, the greeting, every log line, `/readyz` and the spans' resource. During an
 * expand/contract upgrade that is how one tells which instance runs which code on which schema.
 *
 * - `version`: the package's version (package.json);
 * - `commit`: the source's commit, written into the artefact by `npm run build` (`dist/src/build-info.json`),
 *   else read from git in a checkout, else `unknown` (a copy without history);
 * - `schemaVersion`: the number of migrations this code knows (the schema it writes);
 * - `instanceId`: this process, one random id per start (OpenTelemetry's `service.instance.id`).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../contract/project.js';
import { MIGRATIONS } from '../store/migrations.js';

export interface BuildInfo {
  version: string;
  commit: string;
  schemaVersion: number;
  instanceId: string;
}

/** The file `npm run build` writes beside the compiled code: `{ "commit": "…" }`. */
export const BUILD_INFO_FILE = 'build-info.json';

/** The artefact's file, when this module runs compiled in `dist/src/ops/`. */
const artefactBuildInfo = join(dirname(fileURLToPath(import.meta.url)), '..', BUILD_INFO_FILE);

export function readBuildInfo(): BuildInfo {
  const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  return { version, commit: builtCommit() ?? sourceCommit(projectRoot) ?? 'unknown', schemaVersion: MIGRATIONS.length, instanceId: randomUUID() };
}

/** The commit of the source in `root`, from git; undefined where there is no git or no history. */
export function sourceCommit(root: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2_000 }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function builtCommit(): string | undefined {
  try {
    return (JSON.parse(readFileSync(artefactBuildInfo, 'utf8')) as { commit?: string }).commit;
  } catch {
    return undefined;
  }
}

/** The fields every log line carries (pino's `base`). */
export function logFields(info: BuildInfo): Record<string, string | number> {
  return { version: info.version, commit: info.commit, schemaVersion: info.schemaVersion, instanceId: info.instanceId };
}

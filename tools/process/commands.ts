/**
 * Command lines for the project's programs, for `launch` and `runCommand`. TypeScript entries run
 * as `node --import tsx <entry>`, which is what the `tsx` command does but in one process: the
 * pid is the program itself (its RSS, its signals), and there is no second node to start.
 */
import { join, relative, resolve } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

/** A TypeScript entry (relative to the project root, e.g. `src/cli/keys.ts`) under the tsx loader, as `npm run` scripts run it. */
export function tsxCommand(entry: string, args: readonly string[] = []): string[] {
  return [process.execPath, '--import', 'tsx', resolve(projectRoot, entry), ...args];
}

/** The same entry compiled by `npm run build` into `dist/`, with plain node, as `npm run start:prod` runs the server. */
export function compiledCommand(entry: string, args: readonly string[] = []): string[] {
  return [process.execPath, join(projectRoot, 'dist', relative(projectRoot, resolve(projectRoot, entry))).replace(/\.ts$/, '.js'), ...args];
}

/**
 * TypeScript 7's native compiler, which checks and builds the project (`npm run typecheck`, `npm run build`).
 * Named by path: it is installed as the alias `typescript-native` beside TypeScript 5 (whose API
 * openapi-typescript needs), and both packages claim the `tsc` binary (ADR 0009). The dev loop's typecheck runs it too.
 */
export function typescriptCommand(args: readonly string[] = []): string[] {
  return [process.execPath, join(projectRoot, 'node_modules', 'typescript-native', 'bin', 'tsc'), ...args];
}

/** A binary a dependency installs in `node_modules/.bin` (`redocly`). */
export function binCommand(name: string, args: readonly string[] = []): string[] {
  return [join(projectRoot, 'node_modules', '.bin', name), ...args];
}

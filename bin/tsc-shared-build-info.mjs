#!/usr/bin/env node
/**
 * The type checker vitest's typecheck runs (`vitest.config.ts`, for `test/**\/*.test-d.ts`): the project's tsc
 * (typescript-native), given the build-info file `npm run typecheck` keeps instead of vitest's own. Both check
 * the same `tsconfig.json`, so after `npm run check` (the first half of `npm test`) this run only confirms what
 * that one checked, where with a file of its own it typechecked the whole project a second time (about 7 s of
 * CPU on a fresh clone of a 2-core machine).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SHARED_BUILD_INFO = 'node_modules/.cache/typecheck.tsbuildinfo';
const tsc = fileURLToPath(new URL('../node_modules/typescript-native/bin/tsc', import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf('--tsBuildInfoFile');
if (at >= 0 && at + 1 < args.length) args[at + 1] = SHARED_BUILD_INFO;
const run = spawnSync(process.execPath, [tsc, ...args], { stdio: 'inherit' });
process.exit(run.status ?? 1);

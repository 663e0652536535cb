/**
 * `npm run build`: the production artefact in `dist/` (ADR 0027). Removes what an earlier build left
 * (a deleted source must not ship), compiles `src/` with `tsconfig.build.json` into `dist/src/`, and
 * prebuilds the pages (the bundled script and the stylesheet) into `dist/pages/`, where the compiled
 * server reads them: `npm run start:prod` then loads neither TypeScript, tsx nor esbuild. With
 * `package.json`, `package-lock.json`, `redocly.yaml`, `openapi/` and `bin/`, that is all a production
 * install needs (docs/deploying.md). `dist/src/build-info.json` names the commit it was built from. Leaves the rest of `dist/` alone (the client package's tarball,
 * the bench's peers). Exit codes: 0 built, 1 the compiler or the bundler failed.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { BUILD_INFO_FILE, sourceCommit } from '../../src/ops/build-info.js';
import { typescriptCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';
import { prebuildPages } from './pages.js';

const dist = join(projectRoot, 'dist');

async function main(): Promise<number> {
  for (const stale of ['src', 'generated', 'pages']) rmSync(join(dist, stale), { recursive: true, force: true });
  const compiled = await runCommand(typescriptCommand(['-p', join(projectRoot, 'tsconfig.build.json')]), { cwd: projectRoot, timeoutMs: 300_000 });
  if (compiled.code !== 0) {
    process.stderr.write(`build: tsc failed\n${compiled.stdout}${compiled.stderr}`);
    return 1;
  }
  // The commit the artefact was built from: a production install has no git to ask (src/ops/build-info.ts).
  writeFileSync(join(dist, 'src', BUILD_INFO_FILE), `${JSON.stringify({ commit: sourceCommit(projectRoot) ?? 'unknown' })}\n`);
  const pages = await prebuildPages();
  process.stdout.write(`build: compiled src/ into ${relative(projectRoot, join(dist, 'src'))}/ and prebuilt the pages into ${relative(projectRoot, pages)}/\n`);
  return 0;
}

process.exitCode = await main();

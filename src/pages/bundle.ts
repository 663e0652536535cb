import { resolve } from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../contract/project.js';

/** The pages' sources: read from `src/`, so only a run from source or `npm run build` calls this (never a server run from `dist/`). */
export const PAGE_SOURCES = {
  script: resolve(projectRoot, 'src/pages/main.ts'),
  stylesheet: resolve(projectRoot, 'src/pages/styles.css'),
} as const;

/**
 * The pages' script: `main.ts` and the typed account client, bundled by esbuild into one minified
 * ES module. Runs at `npm run build` (into `dist/pages/`) and at the start of a server run from
 * source (`npm start`, the tests); a server run from `dist/` reads the prebuilt file and never
 * loads esbuild (ADR 0027).
 */
export async function bundlePageScript(): Promise<string> {
  const result = await build({
    entryPoints: [PAGE_SOURCES.script],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    write: false,
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = result.outputFiles[0];
  if (!script) throw new Error('esbuild produced no script for the pages');
  return script.text;
}

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PREBUILT_FILES, PREBUILT_PAGES } from '../../src/pages/assets.js';
import { bundlePageScript, PAGE_SOURCES } from '../../src/pages/bundle.js';

/**
 * Writes the pages' bundled script and stylesheet into `dist/pages/`, where the server compiled into
 * `dist/src/` reads them (`npm run build`, and the bench and profile after they compile the server).
 */
export async function prebuildPages(): Promise<string> {
  mkdirSync(PREBUILT_PAGES, { recursive: true });
  writeFileSync(join(PREBUILT_PAGES, PREBUILT_FILES.script), await bundlePageScript());
  copyFileSync(PAGE_SOURCES.stylesheet, join(PREBUILT_PAGES, PREBUILT_FILES.stylesheet));
  return PREBUILT_PAGES;
}

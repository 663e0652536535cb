import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../contract/project.js';
import { type PageOptions, renderPages } from './html.js';

/** One file the web application serves. */
export interface PageAsset {
  body: string;
  contentType: string;
}

/** The pages and their assets, by URL path. */
export interface PageAssets {
  get(path: string): PageAsset | undefined;
}

/** A key on a blue square, so the tab has an icon and the browser asks for no /favicon.ico. */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b5cad"/><circle cx="12" cy="16" r="5" fill="none" stroke="#fff" stroke-width="3"/><path d="M17 16h10m-3 0v4" stroke="#fff" stroke-width="3" fill="none"/></svg>';

const here = fileURLToPath(import.meta.url);

/** Where `npm run build` puts the bundled script and the stylesheet: `dist/pages/`, beside the compiled `dist/src/`. */
export const PREBUILT_PAGES = resolve(projectRoot, 'dist/pages');
export const PREBUILT_FILES = { script: 'app.js', stylesheet: 'app.css' } as const;

/**
 * The script and the stylesheet. Run from source (this module is TypeScript: `npm start`, the tests),
 * they are bundled now, with esbuild loaded only then; run compiled (`npm run start:prod`), they are
 * read from `dist/pages/`, so production needs neither esbuild nor `src/` (ADR 0027).
 */
async function scriptAndStylesheet(): Promise<{ script: string; stylesheet: string }> {
  if (here.endsWith('.ts')) {
    const { bundlePageScript, PAGE_SOURCES } = await import('./bundle.js');
    return { script: await bundlePageScript(), stylesheet: readFileSync(PAGE_SOURCES.stylesheet, 'utf8') };
  }
  const read = (file: string) => {
    const path = resolve(PREBUILT_PAGES, file);
    if (!existsSync(path))
      throw new Error(`${relative(projectRoot, path)} is missing: run \`npm run build\`, which compiles the server and prebuilds the pages`);
    return readFileSync(path, 'utf8');
  };
  return { script: read(PREBUILT_FILES.script), stylesheet: read(PREBUILT_FILES.stylesheet) };
}

/**
 * The pages in memory, once at startup: the script (`main.ts` and the typed
 * account client, one ES module), the stylesheet, and the HTML of each page.
 * Nothing is fetched from the network at run time: no CDN script, no web font.
 */
export async function buildPages(options: PageOptions): Promise<PageAssets> {
  const { script, stylesheet } = await scriptAndStylesheet();
  const assets = new Map<string, PageAsset>([
    ['/assets/app.js', { body: script, contentType: 'text/javascript; charset=utf-8' }],
    ['/assets/app.css', { body: stylesheet, contentType: 'text/css; charset=utf-8' }],
    ['/assets/icon.svg', { body: ICON, contentType: 'image/svg+xml' }],
  ]);
  for (const [path, html] of renderPages(options)) assets.set(path, { body: html, contentType: 'text/html; charset=utf-8' });
  return assets;
}

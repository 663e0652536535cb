import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
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

/** From the sources, also when the server runs compiled from `dist/` (tsc copies no CSS). */
const source = (file: string) => resolve(projectRoot, 'src/pages', file);

/**
 * Builds the pages in memory, once at startup: the script (`main.ts` and the
 * typed account client, bundled by esbuild into one ES module), the stylesheet,
 * and the HTML of each page. Nothing is fetched from the network at run time:
 * no CDN script, no web font.
 */
export async function buildPages(options: PageOptions): Promise<PageAssets> {
  const result = await build({
    entryPoints: [source('./main.ts')],
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
  const assets = new Map<string, PageAsset>([
    ['/assets/app.js', { body: script.text, contentType: 'text/javascript; charset=utf-8' }],
    ['/assets/app.css', { body: readFileSync(source('./styles.css'), 'utf8'), contentType: 'text/css; charset=utf-8' }],
    ['/assets/icon.svg', { body: ICON, contentType: 'image/svg+xml' }],
  ]);
  for (const [path, html] of renderPages(options)) assets.set(path, { body: html, contentType: 'text/html; charset=utf-8' });
  return assets;
}

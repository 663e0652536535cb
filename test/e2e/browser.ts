import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { onTestFailed } from 'vitest';

/** Debian's Chromium (`apt-get install -y chromium`, as `.ci/run` does); playwright-core never downloads a browser. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Headless, offline, quiet: no first-run, sync, update or background traffic; only loopback is visited. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's with \`apt-get update && apt-get install -y chromium\` (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Set to a folder to keep the named screenshots the tests take of each page (`E2E_SCREENSHOTS=shots npm test`). */
const keepAll = process.env['E2E_SCREENSHOTS'];
let folder: string | undefined;

/** Where screenshots go: `E2E_SCREENSHOTS`, else a temporary folder made at the first failure. */
export function screenshotDir(): string {
  folder ??= keepAll ?? mkdtempSync(join(tmpdir(), 'e2e-screenshots-'));
  mkdirSync(folder, { recursive: true });
  return folder;
}

export interface BrowserPage {
  context: BrowserContext;
  page: Page;
  /** Messages the page wrote to its console as errors (a CSP violation shows up here). */
  consoleErrors: string[];
  /** Saves a screenshot under `screenshotDir()` when `E2E_SCREENSHOTS` is set, and returns its path (undefined when not kept). */
  screenshot(name: string): Promise<string | undefined>;
  /** Takes a screenshot if the running test fails; `openPage` does this for the test that opens the page. */
  watch(name: string): void;
}

/**
 * A page in a fresh context (no cookies, no storage) of the shared browser,
 * 390 px wide unless told, with the clipboard allowed for `origin`. If the
 * running test fails, a full-page screenshot is saved and its path printed.
 */
export async function openPage(browser: Browser, options: { origin: string; width?: number; name: string }): Promise<BrowserPage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 390, height: 844 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: options.origin });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  const save = async (name: string) => {
    const path = join(screenshotDir(), `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    return path;
  };
  const screenshot = async (name: string) => (keepAll ? save(name) : undefined);
  const watch = (name: string) =>
    onTestFailed(async () => {
      try {
        const path = await save(`FAILED-${name}`);
        console.error(`screenshot of the failed page (${page.url()}): ${path}`);
      } catch (error) {
        console.error(`no screenshot: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  watch(options.name);
  return { context, page, consoleErrors, screenshot, watch };
}

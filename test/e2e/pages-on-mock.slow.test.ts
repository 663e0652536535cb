/**
 * What a frontend developer gets from `npm run mock:web --examples`: the real pages, in
 * Chromium, against the Prism mock of the account API, showing the spec's
 * examples. No server, no database. (Its default, the stateful mock, is
 * `stateful-mock-web.slow.test.ts`.)
 */

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { launchChromium, openPage } from './browser.js';

let browser: Browser;
let url: string;
let pages: LaunchedProcess | undefined;

beforeAll(async () => {
  const [pagesPort, mockPort] = [await portToBindLater(), await portToBindLater()];
  pages = launch(tsxCommand('src/mock/web.ts', ['--examples', '--port', String(pagesPort), '--mock-port', String(mockPort)]));
  browser = await launchChromium();
  const [, started = ''] = await waitForOutput(pages, /^Web application on (\S+)$/m, { timeoutMs: 60_000 });
  url = started;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await pages?.stop();
});

describe('npm run mock:web', () => {
  it("serves the pages against the account API's mock: sign up, the example keys, a generated key shown once, sign out", async () => {
    const { page, context, screenshot } = await openPage(browser, { origin: url, name: 'pages-on-mock', width: 1024 });
    await page.goto(url);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('User name').fill('frontend-dev');
    await page.getByLabel('Password').fill('any password of fifteen');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/settings');
    // The spec's examples: user "ada", two keys named CI pipeline (one rolled) and a revoked one.
    await expect.poll(() => page.locator('#signed-in-as').textContent()).toBe('ada');
    await expect.poll(() => page.locator('#key-list > li').count()).toBe(3);
    expect(await page.locator('#key-list').textContent()).toContain('Rolled: works until');
    await page.getByLabel('Name', { exact: true }).fill('from the mock');
    await page.getByRole('button', { name: 'Generate key' }).click();
    await page.getByRole('heading', { name: 'Copy your new key now' }).waitFor();
    expect(await page.getByLabel('API key', { exact: true }).inputValue()).toBe('tka_3xAmpLe0nly9Zq2Wv5Rt8Yu1Io4Pa7Sdx2Q7xe');
    expect(await page.getByLabel('Try it: list your items with curl').inputValue()).toContain('http://127.0.0.1:4010/');
    await screenshot('pages-on-mock-settings');
    // The static mock answers every page of activity with the same example and its cursor: the list ends there, once.
    const events = await page.locator('#event-list > li').count();
    await page.getByRole('button', { name: 'Show older activity' }).click();
    await expect.poll(() => page.locator('#more-events').isHidden()).toBe(true);
    expect(await page.locator('#event-list > li').count()).toBe(events);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in');
    await context.close();
  });
});

/**
 * Issue 34's "done when", in Chromium against `npm run mock:web` (the stateful mock by default): sign up as
 * grace and the header says grace; a key made is listed with its name; revoked, it shows as revoked; and a
 * second browser context, another user, sees none of it.
 */

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { launchChromium, openPage } from './browser.js';

const KEY = 'probe-key-xyz';
let browser: Browser;
let url: string;
let web: LaunchedProcess | undefined;

beforeAll(async () => {
  const [pagesPort, mockPort] = [await portToBindLater(), await portToBindLater()];
  web = launch(tsxCommand('src/mock/web.ts', ['--port', String(pagesPort), '--mock-port', String(mockPort)]));
  browser = await launchChromium();
  const [, started = ''] = await waitForOutput(web, /^Web application on (\S+)$/m, { timeoutMs: 60_000 });
  url = started;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

async function signUp(page: Page, name: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill('orbit velvet lantern quietly');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/settings');
}

/** The list entry of the key with this name, if listed. */
const keyEntry = (page: Page) => page.locator('#key-list > li').filter({ hasText: KEY });

describe('npm run mock:web, stateful', () => {
  it('keeps what grace makes, for grace only: signed in as grace, her key listed, revoked, and another user sees none of it', async () => {
    const grace = await openPage(browser, { origin: url, name: 'stateful-mock-grace', width: 1024 });
    await signUp(grace.page, 'grace');
    await expect.poll(() => grace.page.locator('#signed-in-as').textContent()).toBe('grace');

    await grace.page.getByLabel('Name', { exact: true }).fill(KEY);
    await grace.page.getByRole('button', { name: 'Generate key' }).click();
    await grace.page.getByRole('heading', { name: 'Copy your new key now' }).waitFor();
    await grace.page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => keyEntry(grace.page).count()).toBe(1);
    expect(await keyEntry(grace.page).locator('.state').textContent()).toBe('Active');
    // A reload reads the list again: the key is the mock's, not the page's.
    await grace.page.reload();
    await expect.poll(() => keyEntry(grace.page).count()).toBe(1);

    await grace.page.getByRole('button', { name: new RegExp(`^Revoke ${KEY}`) }).click();
    await grace.page.locator('#revoke-confirm').click();
    await expect.poll(() => keyEntry(grace.page).locator('.state').textContent()).toBe('Revoked');
    await grace.page.reload();
    await expect.poll(() => keyEntry(grace.page).locator('.state').textContent()).toBe('Revoked');

    const other = await openPage(browser, { origin: url, name: 'stateful-mock-other', width: 1024 });
    await signUp(other.page, 'hopper');
    await expect.poll(() => other.page.locator('#signed-in-as').textContent()).toBe('hopper');
    await other.page.locator('#key-list').waitFor({ state: 'attached' });
    await expect.poll(() => other.page.locator('#key-list > li').count()).toBeGreaterThan(0);
    expect(await keyEntry(other.page).count()).toBe(0);
    // And grace's world is untouched by hopper's.
    await grace.page.reload();
    await expect.poll(() => keyEntry(grace.page).locator('.state').textContent()).toBe('Revoked');
    await Promise.all([grace.context.close(), other.context.close()]);
  });
});

/**
 * The sign-up form's refusals in Chromium, against `npm start`'s process: focus goes to the field the problem
 * names, which is marked `aria-invalid` and described by the message, and the message reads as a sentence.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { launchChromium, openPage } from '../e2e/browser.js';

const database = scratchDatabase('sign-up-form-');
const STRONG = 'granite tulip seventy otter';
let server: ServerProcess | undefined;
let browser: Browser;
let webUrl: string;

beforeAll(async () => {
  const [started, launched] = await Promise.allSettled([startServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } }), launchChromium()]);
  if (started.status === 'fulfilled') server = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  if (started.status === 'rejected') throw started.reason;
  if (launched.status === 'rejected') throw launched.reason;
  webUrl = server?.webUrl.replace(/\/$/, '') ?? '';
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  database.remove();
});

/** What assistive technology is told about a field: focused or not, invalid or not, and the ids that describe it. */
function fieldState(page: Page, id: string) {
  return page.evaluate((fieldId) => {
    const field = document.getElementById(fieldId);
    return {
      focused: document.activeElement === field,
      invalid: field?.getAttribute('aria-invalid') ?? null,
      describedBy: field?.getAttribute('aria-describedby') ?? null,
    };
  }, id);
}

async function submit(page: Page, name: string, password: string): Promise<void> {
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
}

describe('the sign-up form, refused', () => {
  it('about the password: focus on the password, marked invalid and described by the message; fixed, the account is made', async () => {
    const { page, context } = await openPage(browser, { origin: webUrl, name: 'sign-up-weak-password', width: 1024 });
    await page.goto(`${webUrl}/sign-up`);
    await submit(page, 'grace', 'passwordpassword');
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toMatch(/^The password repeats a character or a group of characters, so it is easy to guess .*\.$/);
    expect(await fieldState(page, 'password')).toEqual({ focused: true, invalid: 'true', describedBy: 'form-error password-hint' });
    expect(await fieldState(page, 'name')).toEqual({ focused: false, invalid: null, describedBy: 'name-hint' });
    // The next try starts clean: the marks go, and a good password makes the account.
    await page.getByLabel('Password').fill(STRONG);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/settings');
    await expect.poll(() => page.locator('#signed-in-as').textContent()).toBe('grace');
    await context.close();
  });

  it('about a taken name: focus on the user name, marked invalid, the password left alone', async () => {
    // Taken by a script (no Origin: not a browser page), so this test stands on its own.
    const taken = await fetch(`${webUrl}/api/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hopper', password: STRONG }),
    });
    expect(taken.status).toBe(201);
    const { page, context } = await openPage(browser, { origin: webUrl, name: 'sign-up-taken-name', width: 1024 });
    await page.goto(`${webUrl}/sign-up`);
    await submit(page, 'hopper', STRONG);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('This user name is taken; choose another.');
    expect(await fieldState(page, 'name')).toEqual({ focused: true, invalid: 'true', describedBy: 'form-error name-hint' });
    expect(await fieldState(page, 'password')).toEqual({ focused: false, invalid: null, describedBy: 'password-hint' });
    await context.close();
  });

  it('signing in with a wrong password: focus on the password, no field marked (the answer does not say which was wrong)', async () => {
    const { page, context } = await openPage(browser, { origin: webUrl, name: 'sign-in-wrong', width: 1024 });
    await page.goto(`${webUrl}/sign-in`);
    await page.getByLabel('User name').fill('nobody-here');
    await page.getByLabel('Password').fill('not the right password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The user name or password is wrong.');
    expect(await fieldState(page, 'password')).toMatchObject({ focused: true, invalid: null });
    expect(await fieldState(page, 'name')).toMatchObject({ focused: false, invalid: null });
    await context.close();
  });
});

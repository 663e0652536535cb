/**
 * The web application in a real browser (Debian's Chromium through
 * playwright-core), against `npm start`'s process: a newcomer signs up,
 * generates a key, copies it and uses it; rolls, revokes, a second user, a
 * cross-site form and signing out. One browser for the file, a fresh context
 * per person; a failed test leaves a screenshot (its path is printed).
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_CHANGE_CHECK_MS } from '../../src/store/sqlite-store.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { type BrowserPage, launchChromium, openPage } from './browser.js';

const database = scratchDatabase('web-e2e-');
const PASSWORD = 'correct horse battery staple';
let server: ServerProcess;
let browser: Browser;
let webUrl: string;
let startedAt: number;

beforeAll(async () => {
  startedAt = performance.now();
  const [started, launched] = await Promise.allSettled([startServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' } }), launchChromium()]);
  if (started.status === 'fulfilled') server = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  if (started.status === 'rejected') throw started.reason;
  if (launched.status === 'rejected') throw launched.reason;
  const url = /^Web application on (\S+)$/m.exec(server.stderr())?.[1];
  if (!url) throw new Error(`the server did not print where the web application is:\n${server.stdout()}`);
  webUrl = url;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  database.remove();
});

/** The three operations of the public API, as a program with the key would call them. */
async function publicStatuses(key: string): Promise<number[]> {
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const answers = await Promise.all([
    fetch(`${server.url}/`, { method: 'POST', headers, body: '{"sort":"asc"}' }),
    fetch(`${server.url}/shared`, { method: 'POST', headers, body: '{}' }),
    fetch(`${server.url}/shared?sort=desc`, { headers: { Authorization: headers.Authorization } }),
  ]);
  for (const answer of answers) await answer.body?.cancel();
  return answers.map((answer) => answer.status);
}

async function wwwAuthenticate(key: string): Promise<string | null> {
  const answer = await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${key}` } });
  await answer.body?.cancel();
  return answer.status === 401 ? answer.headers.get('www-authenticate') : `status ${answer.status}`;
}

async function signUp({ page }: BrowserPage, name: string): Promise<void> {
  await page.goto(webUrl);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/settings');
  await expect.poll(() => page.locator('#signed-in-as').textContent()).toBe(name);
}

/** Generates a key on the settings page and returns what the show-once panel shows. */
async function generateKey({ page }: BrowserPage, name: string, expiry = '30 days'): Promise<{ key: string; curl: string }> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Expires in', { exact: true }).selectOption({ label: expiry });
  await page.getByRole('button', { name: 'Generate key' }).click();
  const heading = page.getByRole('heading', { name: 'Copy your new key now' });
  await heading.waitFor();
  await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('new-key-heading');
  return { key: await page.getByLabel('API key', { exact: true }).inputValue(), curl: await page.getByLabel('Try it: list your items with curl').inputValue() };
}

/** Nothing wider than the viewport: readable at 390 px without scrolling sideways. */
async function expectNoSidewaysScroll({ page }: BrowserPage): Promise<void> {
  const widths = await page.evaluate(() => ({ content: document.documentElement.scrollWidth, viewport: window.innerWidth }));
  expect(widths.content, 'page wider than the viewport').toBeLessThanOrEqual(widths.viewport);
}

/** Console errors but the browser's own note on each 401 and 403 answer: a CSP violation or a script error is one. */
function unexpectedConsoleErrors({ consoleErrors }: BrowserPage): string[] {
  return consoleErrors.filter((message) => !/the server responded with a status of 40[13]/.test(message));
}

let ada: BrowserPage;
let adaKey: { key: string; curl: string };
let adaKeyId: string;

describe('the web application in Chromium', () => {
  it('a newcomer signs up, generates a key, copies it, and the key and the shown curl work on the public API', async () => {
    ada = await openPage(browser, { origin: webUrl, name: 'newcomer' });
    await signUp(ada, 'ada');
    await expectNoSidewaysScroll(ada);
    adaKey = await generateKey(ada, 'CI pipeline');
    expect(adaKey.key).toMatch(/^tka_[0-9A-Za-z]{38}$/);
    // The server process hashed the password at OWASP's cost (npm test's in-process hashes are cheaper: test/setup/).
    const raw = new Database(database.path, { readonly: true });
    expect(raw.prepare('SELECT password_hash FROM users WHERE name = ?').pluck().get('ada')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    raw.close();
    await expectNoSidewaysScroll(ada);
    await ada.screenshot('settings-new-key-390px');

    await ada.page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => ada.page.locator('#copy-status').textContent()).toBe('The key is copied.');
    expect(await ada.page.evaluate(() => navigator.clipboard.readText())).toBe(adaKey.key);

    expect(await publicStatuses(adaKey.key)).toEqual([200, 200, 200]);
    console.log(`newcomer path: from starting the server to the first 200 with a key made in the browser: ${Math.round(performance.now() - startedAt)} ms`);
    // The command holds no key: it asks for it, and the key is typed (pasted) at its prompt.
    expect(adaKey.curl).not.toContain(adaKey.key);
    const run = promisify(execFile)('bash', ['-c', adaKey.curl]);
    run.child.stdin?.end(`${adaKey.key}\n`);
    const { stdout } = await run;
    expect(JSON.parse(stdout.slice(stdout.indexOf('{')))).toMatchObject({ items: expect.any(Array), nextCursor: null });

    // The list shows the hint, never the secret, once the panel is done with.
    await ada.page.getByRole('button', { name: 'Done, I have stored it' }).click();
    const item = ada.page.locator('#key-list > li').filter({ hasText: 'CI pipeline' });
    await expect.poll(() => item.textContent()).toContain(`tka_…${adaKey.key.slice(-4)}`);
    expect(await ada.page.content()).not.toContain(adaKey.key);
    adaKeyId = (await item.getAttribute('data-key-id')) ?? '';
    expect(adaKeyId).toMatch(/^key_/);
    expect(unexpectedConsoleErrors(ada)).toEqual([]);
  });

  it('refuses a wrong password without saying which half was wrong, then signs in, by keyboard alone with visible focus', async () => {
    const visitor = await openPage(browser, { origin: webUrl, name: 'wrong-password', width: 1024 });
    const { page } = visitor;
    await page.goto(`${webUrl}/sign-in`);
    // Over plain HTTP the page says what any other server on the host can do with its cookies (issue 33).
    await expect.poll(() => page.locator('#plain-http').isVisible()).toBe(true);
    expect(await page.locator('#plain-http').textContent()).toContain('any other server on this computer can read its cookies');
    await page.keyboard.press('Tab'); // the skip link
    await page.keyboard.press('Tab'); // the brand link
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    expect(outline).not.toBe('none');
    await page.keyboard.type('ada');
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the right password');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toBe('The user name or password is wrong.');
    await visitor.screenshot('sign-in-wrong-password');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/settings');
    await visitor.context.close();
  });

  it('rolls the key: the old one keeps working during the overlap, then gets 401', async () => {
    ada.watch('roll');
    const { page } = ada;
    await page.getByRole('button', { name: `Roll CI pipeline (tka_…${adaKey.key.slice(-4)})` }).click();
    const dialog = page.getByRole('dialog', { name: /Roll/ });
    await dialog.getByLabel('Old key keeps working for').selectOption({ label: '1 hour' });
    await ada.screenshot('roll-dialog');
    await dialog.getByRole('button', { name: 'Roll key' }).click();
    await page.getByRole('heading', { name: 'Copy your new key now' }).waitFor();
    const rolled = await page.getByLabel('API key', { exact: true }).inputValue();
    expect(rolled).not.toBe(adaKey.key);
    expect(await publicStatuses(rolled)).toEqual([200, 200, 200]);
    expect(await publicStatuses(adaKey.key)).toEqual([200, 200, 200]);
    await expect
      .poll(() =>
        page
          .locator('#key-list > li')
          .filter({ hasText: `tka_…${adaKey.key.slice(-4)}` })
          .textContent(),
      )
      .toContain('Rolled: works until');

    // The hour passes: the overlap's end is moved into the past, as the clock would, by another connection.
    const raw = new Database(database.path);
    raw.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(new Date(Date.now() - 1000).toISOString(), adaKeyId);
    raw.close();
    // Another connection's change reaches the server within SQLite's change bound (ADR 0018).
    await new Promise((resolve) => setTimeout(resolve, SQLITE_CHANGE_CHECK_MS));
    expect(await publicStatuses(adaKey.key)).toEqual([401, 401, 401]);
    expect(await wwwAuthenticate(adaKey.key)).toContain('The API key was rolled; its overlap ended');
    expect(await publicStatuses(rolled)).toEqual([200, 200, 200]);
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    adaKey = { key: rolled, curl: '' };
    await page.reload();
    const newItem = page.locator('#key-list > li').filter({ hasText: `tka_…${rolled.slice(-4)}` });
    adaKeyId = (await newItem.getAttribute('data-key-id')) ?? '';
    await expect.poll(() => page.locator('#event-list').textContent()).toContain('Expired');
  });

  it('revokes behind a confirmation: Cancel keeps the key, Revoke makes its next request 401', async () => {
    ada.watch('revoke');
    const { page } = ada;
    const name = `Revoke CI pipeline (tka_…${adaKey.key.slice(-4)})`;
    const revoke = page.getByRole('button', { name });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: /Revoke/ });
    await ada.screenshot('revoke-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(name);
    expect(await publicStatuses(adaKey.key)).toEqual([200, 200, 200]);
    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Revoked “CI pipeline”. It no longer works.');
    expect(await publicStatuses(adaKey.key)).toEqual([401, 401, 401]);
    expect(await wwwAuthenticate(adaKey.key)).toContain('The API key has been revoked.');
  });

  it('another user sees none of it and cannot revoke it', async () => {
    const grace = await openPage(browser, { origin: webUrl, name: 'second-user' });
    await signUp(grace, 'grace');
    await expect.poll(() => grace.page.locator('#keys-empty').isVisible()).toBe(true);
    const graceKey = await generateKey(grace, 'grace laptop', '7 days');
    const page = ada.page;
    await page.reload();
    expect(await page.content()).not.toContain('grace laptop');
    // Grace's page asks for Ada's key by id, through the same account API the page uses.
    const statuses = await grace.page.evaluate(async (id) => {
      const post = (path: string, body?: string) =>
        fetch(path, { method: 'POST', headers: body ? { 'Content-Type': 'application/json' } : {}, ...(body && { body }) }).then((answer) => answer.status);
      return [await post(`/api/keys/${id}/revoke`), await post(`/api/keys/${id}/roll`, '{}')];
    }, adaKeyId);
    expect(statuses).toEqual([404, 404]);
    expect(await grace.page.evaluate(() => fetch('/api/keys').then((answer) => answer.json()))).toEqual({
      keys: [expect.objectContaining({ name: 'grace laptop' })],
      nextCursor: null,
    });
    expect(await publicStatuses(graceKey.key)).toEqual([200, 200, 200]);
    await grace.context.close();
  });

  it('shows an active key however many keys were made and revoked after it; older keys on demand, and removable', async () => {
    const hal = await openPage(browser, { origin: webUrl, name: 'many-keys' });
    await signUp(hal, 'hal');
    await generateKey(hal, 'old but active');
    await hal.page.getByRole('button', { name: 'Done, I have stored it' }).click();
    // 100 keys made and revoked after it, through the account API the page uses.
    await hal.page.evaluate(async () => {
      for (let cycle = 0; cycle < 100; cycle++) {
        const made = await fetch('/api/keys', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `cycle ${cycle}` }),
        });
        const { key } = await made.json();
        await fetch(`/api/keys/${key.id}/revoke`, { method: 'POST' });
      }
    });
    const { page } = hal;
    await page.reload();
    const items = page.locator('#key-list > li');
    await expect.poll(() => items.count()).toBe(100);
    expect(await items.first().textContent()).toContain('old but active');
    await page.getByRole('button', { name: /^Revoke old but active/ }).waitFor();
    await page.getByRole('button', { name: 'Show older keys' }).click();
    await expect.poll(() => items.count()).toBe(101);
    expect(await page.getByRole('button', { name: 'Show older keys' }).isHidden()).toBe(true);
    await page.getByRole('button', { name: /^Remove cycle 0 \(tka_…/ }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Removed “cycle 0” from the list. Its activity stays below.');
    await expect.poll(() => items.count()).toBe(100);
    expect(await items.filter({ has: page.getByRole('heading', { name: 'cycle 0', exact: true }) }).count()).toBe(0);
    expect(unexpectedConsoleErrors(hal)).toEqual([]);
    await hal.context.close();
  });

  it('refuses a cross-site form post carrying the session cookie', async () => {
    ada.watch('cross-site');
    // Another origin on the same host: the browser sends the SameSite cookie (ports do not make sites), so the origin check is what stops it.
    const evil: Server = createServer((_request, response) => {
      response.setHeader('Content-Type', 'text/html');
      response.end(`<!doctype html><title>Win a prize</title>
<form id="f" method="POST" action="${webUrl}/api/keys" enctype="text/plain"><input name='{"name":"stolen","x":"' value='"}'></form>
<script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const address = evil.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const answer = ada.page.waitForResponse((response) => response.url() === `${webUrl}/api/keys` && response.request().method() === 'POST');
      await ada.page.goto(`http://127.0.0.1:${port}/`);
      const response = await answer;
      expect(response.status()).toBe(403);
      expect(response.request().headers()['cookie'] ?? (await response.request().allHeaders())['cookie']).toMatch(/^session=/);
      await ada.page.goto(`${webUrl}/settings`);
      await ada.page.locator('#key-list').waitFor();
      expect(await ada.page.evaluate(() => fetch('/api/keys').then((r) => r.json()))).not.toEqual(
        expect.objectContaining({ keys: expect.arrayContaining([expect.objectContaining({ name: 'stolen' })]) }),
      );
    } finally {
      await new Promise((resolve) => evil.close(resolve));
    }
  });

  it('signs out: back to sign in, and the session no longer works', async () => {
    ada.watch('sign-out');
    const { page } = ada;
    await page.goto(`${webUrl}/settings`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in');
    expect(await page.evaluate(() => fetch('/api/session').then((answer) => answer.status))).toBe(401);
    await page.goto(`${webUrl}/settings`);
    await page.waitForURL('**/sign-in');
    expect(unexpectedConsoleErrors(ada)).toEqual([]);
    await ada.context.close();
  });

  it("lists the active sessions, ends another browser's, and changes the password: a wrong current one and a weak new one are said, the right one signs the other browser out", async () => {
    const here = await openPage(browser, { origin: webUrl, name: 'hygiene-here' });
    const there = await openPage(browser, { origin: webUrl, name: 'hygiene-there' });
    await signUp(here, 'ida');
    const signIn = async ({ page }: BrowserPage, password = PASSWORD) => {
      await page.goto(`${webUrl}/sign-in`);
      await page.getByLabel('User name').fill('ida');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/settings');
    };
    const sessionStatus = ({ page }: BrowserPage) => page.evaluate(() => fetch('/api/session').then((answer) => answer.status));
    await signIn(there);
    const { page } = here;
    await page.reload();
    const sessions = page.getByRole('list', { name: 'Active sessions' }).getByRole('listitem');
    await expect.poll(() => sessions.count()).toBe(2);
    expect(await sessions.first().getByRole('heading').textContent()).toBe('This browser');
    const end = page.getByRole('button', { name: /^End the session signed in / });
    expect(await end.count()).toBe(1);
    await end.click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('The session has ended.');
    await expect.poll(() => sessions.count()).toBe(1);
    expect(await sessionStatus(there)).toBe(401);
    expect(await sessionStatus(here)).toBe(200);

    await signIn(there);
    await page.getByLabel('Current password').fill('not the password at all');
    await page.getByLabel('New password').fill('orbit velvet lantern quietly');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.locator('#password-error').textContent()).toBe('The current password is wrong.');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('aaaaaaaaaaaaaaaa');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.locator('#password-error').textContent()).toMatch(/^The new password repeats a character or a group of characters/);
    await page.getByLabel('New password').fill('orbit velvet lantern quietly');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect
      .poll(() => page.locator('#status').textContent())
      .toBe('Your password is changed. Every other browser signed in to your account has been signed out. Your API keys still work.');
    expect(await page.getByLabel('Current password').inputValue()).toBe('');
    expect(await sessionStatus(there)).toBe(401);
    expect(await sessionStatus(here)).toBe(200);
    await signIn(there, 'orbit velvet lantern quietly');
    await expectNoSidewaysScroll(here);
    // The browser notes the 422 of the weak password, as it notes each 401 and 403.
    expect(unexpectedConsoleErrors(here).filter((message) => !message.includes('status of 422'))).toEqual([]);
    await here.context.close();
    await there.context.close();
  });

  it('with JavaScript off, posts the sign-in and sign-up forms (the password in no URL) and says JavaScript is needed', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      const requests: string[] = [];
      page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`));
      const secret = 'typed before any script ran';
      for (const path of ['/sign-in', '/sign-up']) {
        await page.goto(`${webUrl}${path}`);
        await page.getByLabel('User name').fill('no-script');
        await page.getByLabel('Password').fill(secret);
        await page.locator('button[type="submit"]').click();
        await page.waitForLoadState('load');
        // Back on the page, which says why nothing happened, in <noscript> (Chromium's emulated "JavaScript off" does
        // not show <noscript> as a browser with JavaScript turned off does, so it is read from the HTML here); the
        // password was in no URL.
        expect(page.url()).toBe(`${webUrl}${path}`);
        expect(await page.content(), path).toMatch(/<noscript>[^<]*<p[^>]*>[^<]*needs JavaScript/);
      }
      expect(requests).toEqual(expect.arrayContaining([`POST ${webUrl}/sign-in`, `POST ${webUrl}/sign-up`]));
      expect(requests.filter((request) => request.includes(encodeURIComponent(secret).slice(0, 10)) || request.includes('password='))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("tells a browser the account does not know how many minutes to wait once strangers' guesses are spent, and lets the owner's browser in", async () => {
    const json = { 'Content-Type': 'application/json' };
    const made = await fetch(`${webUrl}/api/users`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'hedy', password: PASSWORD }) });
    expect(made.status).toBe(201);
    const device =
      made.headers
        .getSetCookie()
        .find((cookie) => cookie.startsWith('device='))
        ?.split(';')[0] ?? '';
    for (let guess = 1; guess <= 10; guess++) {
      const answer = await fetch(`${webUrl}/api/session`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'hedy', password: `wrong guess ${guess}` }),
      });
      expect(answer.status).toBe(401);
    }
    const signIn = async (visitor: BrowserPage) => {
      await visitor.page.goto(`${webUrl}/sign-in`);
      await visitor.page.getByLabel('User name').fill('hedy');
      await visitor.page.getByLabel('Password').fill(PASSWORD);
      await visitor.page.getByRole('button', { name: 'Sign in' }).click();
    };
    const stranger = await openPage(browser, { origin: webUrl, name: 'unknown-browser' });
    await signIn(stranger);
    await expect.poll(() => stranger.page.getByRole('alert').textContent()).toContain('Try again in 1 minute.');
    await stranger.context.close();
    const owner = await openPage(browser, { origin: webUrl, name: 'known-browser' });
    const [name = '', value = ''] = device.split('=');
    await owner.context.addCookies([{ name, value, url: webUrl, httpOnly: true, sameSite: 'Strict' }]);
    await signIn(owner);
    await owner.page.waitForURL('**/settings');
    await owner.context.close();
  });
});

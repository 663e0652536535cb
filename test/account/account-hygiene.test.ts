/**
 * Account hygiene (issue 20): change the password (asks for the current one, ends the other sessions), list the
 * live sessions and end them. In-process, every answer checked against the account spec by `send`.
 */
import { describe, expect, it } from 'vitest';
import { cookieOf, createTestWebApp, deviceCookieOf, PASSWORD } from '../helpers/web-app.js';

const MINUTE = 60_000;
const NEW_PASSWORD = 'orbit velvet lantern quietly';

type TestWebApp = Awaited<ReturnType<typeof createTestWebApp>>;

/** Signs in again as `name`: a second session of the same user, as another browser would get. */
async function signIn(t: TestWebApp, name: string, password = PASSWORD): Promise<string> {
  const response = await t.send('POST', '/api/session', { body: { name, password } });
  expect(response.status, response.text).toBe(200);
  return cookieOf(response);
}

function changePassword(t: TestWebApp, cookie: string, currentPassword: string, newPassword = NEW_PASSWORD, extraCookie = '') {
  return t.send('PUT', '/api/password', { cookie: [cookie, extraCookie].filter(Boolean).join('; '), body: { currentPassword, newPassword } });
}

describe('changing the password', () => {
  it('with the right current password: 204, the new password signs in, the old does not, every other session ends and this one stays', async () => {
    const t = await createTestWebApp();
    const here = (await t.signUp('ada')).cookie;
    const laptop = await signIn(t, 'ada');
    const bob = (await t.signUp('bob')).cookie;
    const changed = await changePassword(t, here, PASSWORD);
    expect(changed.status, changed.text).toBe(204);
    expect((await t.send('GET', '/api/session', { cookie: here })).status).toBe(200);
    const ended = await t.send('GET', '/api/keys', { cookie: laptop });
    expect(ended.status).toBe(401);
    // Another user's sessions are left alone.
    expect((await t.send('GET', '/api/session', { cookie: bob })).status).toBe(200);
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(401);
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: NEW_PASSWORD } })).status).toBe(200);
    const stored = await t.store.findUserCredential('ada');
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(changed.text).toBe('');
  });

  it('compares the current password in NFKC, as sign-in does', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    // Full-width letters are the same password as their plain form.
    const fullWidth = PASSWORD.replace('correct', 'ｃｏｒｒｅｃｔ');
    expect((await changePassword(t, cookie, fullWidth)).status).toBe(204);
  });

  it('answers a wrong current password with 401 and counts it as a failed sign-in: past the limit, 429 here and at sign-in', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const wrong = await changePassword(t, cookie, 'not the password at all');
    expect(wrong).toMatchObject({ status: 401, json: { type: 'urn:problem-type:unauthorized', detail: 'The current password is wrong.' } });
    expect(wrong.headers.get('www-authenticate')).toBe('Cookie realm="account", form-action="/sign-in", cookie-name="session"');
    // The session itself is untouched by a wrong password.
    expect((await t.send('GET', '/api/session', { cookie })).status).toBe(200);
    for (let attempt = 2; attempt <= 10; attempt++) expect((await changePassword(t, cookie, `wrong guess number ${attempt}`)).status).toBe(401);
    const limited = await changePassword(t, cookie, PASSWORD);
    expect(limited).toMatchObject({ status: 429, json: { type: 'urn:problem-type:too-many-sign-in-attempts' } });
    expect(limited.json.detail).toMatch(/^Too many wrong passwords for this account .* Try again in 1 minute\./);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same counts as sign-in's: a sign-in for the account from an unknown browser waits too.
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(429);
    // The password did not change.
    t.clock.now += 61 * MINUTE;
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(200);
  });

  it("counts a browser holding the account's device cookie on its own, as sign-in does: others' guesses do not hold it back", async () => {
    const t = await createTestWebApp();
    const signedUp = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } });
    const [cookie, device] = [cookieOf(signedUp), deviceCookieOf(signedUp)];
    // Someone else spends the account's count.
    for (let attempt = 1; attempt <= 11; attempt++) await t.send('POST', '/api/session', { body: { name: 'ada', password: `wrong guess number ${attempt}` } });
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(429);
    const changed = await changePassword(t, cookie, PASSWORD, NEW_PASSWORD, device);
    expect(changed.status).toBe(204);
    // The change made the browser a new device cookie (the one it had was made under the old password, and ends).
    const renewed = deviceCookieOf(changed);
    expect(renewed).not.toBe(device);
    // Its own wrong ones are counted per device.
    for (let attempt = 1; attempt <= 10; attempt++) expect((await changePassword(t, cookie, `wrong ${attempt}`, NEW_PASSWORD, renewed)).status).toBe(401);
    const limited = await changePassword(t, cookie, NEW_PASSWORD, 'another fresh passphrase here', renewed);
    expect(limited.status).toBe(429);
    expect(limited.json.detail).toMatch(/^Too many wrong passwords from this browser\./);
  });

  it('refuses a new password that breaks the password rule with 422 naming the rule, before any attempt is counted', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const cases = [
      { given: 'aaaaaaaaaaaaaaaa', want: 'repeats a character or a group of characters' },
      { given: 'adaadaadaadaadaada', want: 'repeats a character or a group of characters' },
      { given: 'passwordpassword', want: 'repeats a character or a group of characters' },
    ];
    for (const { given, want } of cases) {
      const weak = await changePassword(t, cookie, 'not even the right one', given);
      expect(weak.status, given).toBe(422);
      expect(weak.json.errors, given).toEqual([{ in: 'body', pointer: '/newPassword', detail: expect.stringContaining(want) }]);
    }
    const short = await changePassword(t, cookie, PASSWORD, 'too short');
    expect(short).toMatchObject({ status: 422, json: { errors: [{ pointer: '/newPassword' }] } });
    // None of those spent an attempt: ten wrong current passwords are still answered 401.
    for (let attempt = 1; attempt <= 10; attempt++) expect((await changePassword(t, cookie, `wrong guess number ${attempt}`)).status).toBe(401);
  });

  it('refuses the current password as the new one with 422', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const same = await changePassword(t, cookie, PASSWORD, PASSWORD);
    expect(same).toMatchObject({ status: 422, json: { errors: [{ pointer: '/newPassword', detail: 'is your current password; choose a new one' }] } });
  });

  it('needs a session: 401 without one', async () => {
    const t = await createTestWebApp();
    await t.signUp('ada');
    expect((await t.send('PUT', '/api/password', { body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD } })).status).toBe(401);
  });
});

describe('active sessions', () => {
  it("lists only the user's own live sessions, this one first and marked current, never a token", async () => {
    const t = await createTestWebApp();
    const old = (await t.signUp('ada')).cookie;
    t.clock.now += 20 * MINUTE;
    const laptop = await signIn(t, 'ada');
    t.clock.now += 5 * MINUTE;
    const here = await signIn(t, 'ada');
    await t.signUp('bob');
    // The first session has been idle past 30 minutes by now: it has ended and is not listed.
    t.clock.now += 15 * MINUTE;
    const listed = await t.send('GET', '/api/sessions', { cookie: here });
    expect(listed.status).toBe(200);
    const sessions = listed.json.sessions as Array<Record<string, unknown>>;
    expect(sessions.map((session) => session['current'])).toEqual([true, false]);
    expect(sessions[0]).toEqual({
      id: expect.stringMatching(/^ses_/),
      createdAt: '2026-01-01T00:25:00.000Z',
      lastSeenAt: '2026-01-01T00:40:00.000Z',
      expiresAt: '2026-01-01T08:25:00.000Z',
      idleExpiresAt: '2026-01-01T01:10:00.000Z',
      current: true,
    });
    expect(sessions[1]).toMatchObject({ createdAt: '2026-01-01T00:20:00.000Z', current: false });
    for (const cookie of [old, laptop, here]) expect(listed.text).not.toContain(cookie.split('=')[1]);
    // From the laptop, the laptop's session is the current one.
    const fromLaptop = await t.send('GET', '/api/sessions', { cookie: laptop });
    expect(fromLaptop.json.sessions.map((session: { id: string; current: boolean }) => [session.id, session.current])).toEqual([
      [sessions[1]?.['id'], true],
      [sessions[0]?.['id'], false],
    ]);
  });

  it("ends one of the user's own sessions: its cookie gets 401, this one stays", async () => {
    const t = await createTestWebApp();
    const here = (await t.signUp('ada')).cookie;
    const laptop = await signIn(t, 'ada');
    const listed = await t.send('GET', '/api/sessions', { cookie: here });
    const other = listed.json.sessions.find((session: { current: boolean }) => !session.current);
    const ended = await t.send('DELETE', `/api/sessions/${other.id}`, { cookie: here });
    expect(ended.status).toBe(204);
    expect(ended.headers.get('set-cookie')).toBeNull();
    expect((await t.send('GET', '/api/session', { cookie: laptop })).status).toBe(401);
    expect((await t.send('GET', '/api/session', { cookie: here })).status).toBe(200);
    expect((await t.send('GET', '/api/sessions', { cookie: here })).json.sessions).toHaveLength(1);
    // Once ended it is no session of the user's.
    expect((await t.send('DELETE', `/api/sessions/${other.id}`, { cookie: here })).status).toBe(404);
  });

  it("answers another user's session id with 404, as an unknown one, and leaves that session alone", async () => {
    const t = await createTestWebApp();
    const ada = (await t.signUp('ada')).cookie;
    const bob = (await t.signUp('bob')).cookie;
    const bobs = (await t.send('GET', '/api/sessions', { cookie: bob })).json.sessions[0].id;
    const foreign = await t.send('DELETE', `/api/sessions/${bobs}`, { cookie: ada });
    expect(foreign).toMatchObject({ status: 404, json: { type: 'urn:problem-type:not-found', detail: 'You have no session with this id.' } });
    const unknown = await t.send('DELETE', '/api/sessions/ses_0000000000000000', { cookie: ada });
    expect(unknown.json.detail).toBe(foreign.json.detail);
    expect((await t.send('GET', '/api/session', { cookie: bob })).status).toBe(200);
  });

  it('signs out when the session ended is this one: the cookie is cleared and gets 401', async () => {
    const t = await createTestWebApp();
    const here = (await t.signUp('ada')).cookie;
    const own = (await t.send('GET', '/api/sessions', { cookie: here })).json.sessions[0].id;
    const ended = await t.send('DELETE', `/api/sessions/${own}`, { cookie: here });
    expect(ended.status).toBe(204);
    expect(ended.headers.get('set-cookie')).toBe('session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
    expect((await t.send('GET', '/api/session', { cookie: here })).status).toBe(401);
  });

  it('refuses a cross-site request to end a session with 403', async () => {
    const t = await createTestWebApp();
    const here = (await t.signUp('ada')).cookie;
    const own = (await t.send('GET', '/api/sessions', { cookie: here })).json.sessions[0].id;
    const crossSite = await t.send('DELETE', `/api/sessions/${own}`, {
      cookie: here,
      headers: { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect((await t.send('GET', '/api/session', { cookie: here })).status).toBe(200);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/account/passwords.js';
import { digestSessionToken } from '../../src/account/sessions.js';
import { readLimits } from '../../src/contract/limits.js';
import { accountSpec, cookieOf, createTestWebApp, deviceCookieOf, PASSWORD, START } from '../helpers/web-app.js';

const MINUTE = 60_000;
// What the account spec decides, read from it: an edit of a limit leaves these tests green.
const { session: SESSION, signIn: SIGN_IN, signUp: SIGN_UP } = readLimits(accountSpec, 'account');
const PASSWORD_MIN = (accountSpec as unknown as { components: { schemas: { SignUpRequest: { properties: { password: { minLength: number } } } } } }).components
  .schemas.SignUpRequest.properties.password.minLength;
const at = (seconds: number) => new Date(START + seconds * 1000).toISOString();
/** The waits past the free attempts, in minutes: the backoff doubled each time, at most the maximum, twice at the maximum. */
function backoffMinutes(): number[] {
  const minutes: number[] = [];
  for (let wait = SIGN_IN.backoffSeconds; minutes.at(-2) !== SIGN_IN.maxBackoffSeconds / 60; wait = Math.min(wait * 2, SIGN_IN.maxBackoffSeconds))
    minutes.push(wait / 60);
  return minutes;
}

describe('sign up, sign in, sign out', () => {
  it('signs a new user up and in with a session cookie: HttpOnly, SameSite=Strict, no Secure over plain HTTP', async () => {
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } });
    expect(response.status).toBe(201);
    expect(response.headers.getSetCookie()[0]).toMatch(
      new RegExp(`^session=[A-Za-z0-9_-]{43}; Path=/; Max-Age=${SESSION.absoluteSeconds}; HttpOnly; SameSite=Strict$`),
    );
    expect(response.json).toMatchObject({ user: { name: 'ada' }, expiresAt: at(SESSION.absoluteSeconds), idleExpiresAt: at(SESSION.idleSeconds) });
    expect(response.text).not.toContain(PASSWORD);
    const session = await t.send('GET', '/api/session', { cookie: cookieOf(response) });
    expect(session.json.user).toEqual(response.json.user);
  });

  it('names the cookie __Host-session and marks it Secure when the web origin is https', async () => {
    const t = await createTestWebApp({ origin: 'https://keys.example.com' });
    const response = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } });
    const [session, device] = response.headers.getSetCookie();
    expect(session).toMatch(new RegExp(`^__Host-session=[A-Za-z0-9_-]{43}; Path=/; Max-Age=${SESSION.absoluteSeconds}; HttpOnly; Secure; SameSite=Strict$`));
    expect(device).toMatch(
      new RegExp(
        `^__Host-device=usr_[0-9a-z]{16}\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}; Path=/; Max-Age=${SIGN_IN.deviceSeconds}; HttpOnly; Secure; SameSite=Strict$`,
      ),
    );
    expect((await t.send('GET', '/api/session', { cookie: cookieOf(response) })).status).toBe(200);
    // The plain development name is not read in secure mode.
    expect((await t.send('GET', '/api/session', { cookie: cookieOf(response).replace('__Host-', '') })).status).toBe(401);
    expect((await t.send('GET', '/sign-in')).headers.get('strict-transport-security')).toContain('max-age=');
  });

  it('stores only the SHA-256 digest of the session token (with its origin over plain HTTP) and an Argon2id hash of the password', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const token = cookie.split('=')[1] ?? '';
    expect(await t.store.findSessionByDigest(digestSessionToken(token, 'http://127.0.0.1:3001'))).toMatchObject({ user: { name: 'ada' } });
    expect(await t.store.findSessionByDigest(digestSessionToken(token))).toBeUndefined();
    const credential = await t.store.findUserCredential('ada');
    // Its parameters are OWASP's outside `npm test`'s setup (test/account/passwords.test.ts holds them).
    expect(credential?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=1\$/);
    expect(credential?.passwordHash).not.toContain(PASSWORD);
  });

  it('over plain HTTP, refuses a session cookie started at another origin: another port of the host cannot toss its session in', async () => {
    // Two listeners on one database, on two ports of one host: cookies are not isolated by port, so a session
    // cookie set at one (or by any page on another port) reaches the other. Sessions are bound to their origin.
    const database = mkdtempSync(join(tmpdir(), 'tossing-'));
    try {
      const databasePath = join(database, 'api.sqlite');
      const victim = await createTestWebApp({ databasePath });
      const elsewhere = await createTestWebApp({ databasePath });
      const at4001 = { Host: '127.0.0.1:4001', Origin: 'http://127.0.0.1:4001' };
      const attacker = await elsewhere.send('POST', '/api/users', { body: { name: 'mallory', password: PASSWORD }, headers: at4001 });
      expect(attacker.status).toBe(201);
      expect((await elsewhere.send('GET', '/api/session', { cookie: cookieOf(attacker), headers: at4001 })).json.user.name).toBe('mallory');
      const tossed = await victim.send('GET', '/api/session', { cookie: cookieOf(attacker) });
      expect(tossed.status).toBe(401);
      expect((await victim.send('POST', '/api/keys', { cookie: cookieOf(attacker), body: { name: 'for mallory' } })).status).toBe(401);
      // A DNS-rebound name at the right port is another origin too.
      const own = await victim.signUp('ada');
      expect((await victim.send('GET', '/api/session', { cookie: own.cookie })).status).toBe(200);
      expect((await victim.send('GET', '/api/session', { cookie: own.cookie, headers: { Host: 'rebound.example:3001' } })).status).toBe(401);
      await victim.store.close();
      await elsewhere.store.close();
    } finally {
      rmSync(database, { recursive: true, force: true });
    }
  });

  it('refuses a taken name with 409 and a short password with 422, saying why', async () => {
    const t = await createTestWebApp();
    await t.signUp('ada');
    const taken = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } });
    expect(taken).toMatchObject({ status: 409, json: { type: 'urn:problem-type:conflict' } });
    const short = await t.send('POST', '/api/users', { body: { name: 'bob', password: 'short' } });
    expect(short.status).toBe(422);
    expect(short.json.errors).toEqual([{ in: 'body', pointer: '/password', detail: expect.stringContaining(String(PASSWORD_MIN)) }]);
    expect(short.text).not.toContain('"short"');
  });

  it('signs in with a new session each time, and ends the one the browser had', async () => {
    const t = await createTestWebApp();
    const first = await t.signUp('ada');
    const signIn = await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD }, cookie: first.cookie });
    expect(signIn.status).toBe(200);
    const second = cookieOf(signIn);
    expect(second).not.toBe(first.cookie);
    expect((await t.send('GET', '/api/session', { cookie: first.cookie })).status).toBe(401);
    expect((await t.send('GET', '/api/session', { cookie: second })).status).toBe(200);
  });

  it('answers a wrong password and an unknown user alike: 401, same detail, the Cookie challenge', async () => {
    const t = await createTestWebApp();
    await t.signUp('ada');
    const wrongPassword = await t.send('POST', '/api/session', { body: { name: 'ada', password: 'not the password at all' } });
    const unknownUser = await t.send('POST', '/api/session', { body: { name: 'nobody', password: PASSWORD } });
    for (const response of [wrongPassword, unknownUser]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Cookie realm="account", form-action="/sign-in", cookie-name="session"');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    const { requestId: _a, ...one } = wrongPassword.json;
    const { requestId: _b, ...other } = unknownUser.json;
    expect(one).toEqual({ ...other, instance: one.instance });
    expect(one.detail).toBe('The user name or password is wrong.');
  });

  it('refuses a user the keys CLI made (no password) as it refuses a wrong password', async () => {
    const t = await createTestWebApp();
    await t.store.createUser('cli-user', new Date(t.clock.now).toISOString());
    const response = await t.send('POST', '/api/session', { body: { name: 'cli-user', password: PASSWORD } });
    expect(response).toMatchObject({ status: 401, json: { detail: 'The user name or password is wrong.' } });
  });

  it('signs out: the cookie is cleared and the session ends on the server, so a copy of the cookie stops working', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const out = await t.send('DELETE', '/api/session', { cookie });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
    const after = await t.send('GET', '/api/keys', { cookie });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('Cookie realm="account"');
  });

  it('ends a session after 30 idle minutes', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    t.clock.now += 29 * MINUTE;
    expect((await t.send('GET', '/api/session', { cookie })).json.idleExpiresAt).toBe(new Date(t.clock.now + 30 * MINUTE).toISOString());
    t.clock.now += 29 * MINUTE;
    expect((await t.send('GET', '/api/session', { cookie })).status).toBe(200);
    t.clock.now += 30 * MINUTE;
    expect((await t.send('GET', '/api/session', { cookie })).status).toBe(401);
  });

  it('ends a session 8 hours after sign-in however busy it is', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    for (let elapsed = 0; elapsed < 8 * 60 - 20; elapsed += 20) {
      t.clock.now += 20 * MINUTE;
      expect((await t.send('GET', '/api/session', { cookie })).status, `after ${elapsed + 20} minutes`).toBe(200);
    }
    t.clock.now += 20 * MINUTE;
    expect((await t.send('GET', '/api/session', { cookie })).status).toBe(401);
  });

  it('refuses a malformed or made-up cookie with 401', async () => {
    const t = await createTestWebApp();
    for (const cookie of ['session=', 'session=abc', `session=${'A'.repeat(43)}`, 'other=1']) {
      expect((await t.send('GET', '/api/keys', { cookie })).status, cookie).toBe(401);
    }
  });
});

describe('failed sign-ins', () => {
  it('are limited per account with a backoff, not a wall: past the free attempts, a wait after the latest, doubled each time up to a maximum, the page told in minutes', async () => {
    let request = 0;
    const t = await createTestWebApp({ clientAddress: () => `10.2.0.${++request}` });
    await t.signUp('ada');
    const guess = () => t.send('POST', '/api/session', { body: { name: 'ada', password: 'not the password at all' } });
    for (let attempt = 1; attempt <= SIGN_IN.failuresPerAccount; attempt++) expect((await guess()).status).toBe(401);
    for (const minutes of backoffMinutes()) {
      // Even the right password waits, and the answer says for how long.
      const limited = await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } });
      expect(limited.status).toBe(429);
      expect(limited.json.type).toBe('urn:problem-type:too-many-sign-in-attempts');
      expect(Number(limited.headers.get('retry-after'))).toBe(minutes * 60);
      expect(limited.json.detail).toContain(`Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`);
      t.clock.now += minutes * MINUTE - 1_000;
      expect((await guess()).status).toBe(429);
      t.clock.now += 1_000;
      expect((await guess()).status).toBe(401);
    }
    // A window after the latest attempt the count is forgotten: the free attempts again.
    t.clock.now += SIGN_IN.windowSeconds * 1000;
    for (let attempt = 1; attempt <= SIGN_IN.failuresPerAccount; attempt++) expect((await guess()).status).toBe(401);
    expect(Number((await guess()).headers.get('retry-after'))).toBe(SIGN_IN.backoffSeconds);
  });

  it("never hold back a browser that signed in to the account before: it is counted on its own, not in the account's or its address's count", async () => {
    let client = '10.3.0.1';
    const t = await createTestWebApp({ clientAddress: () => client });
    const signUp = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } });
    const device = deviceCookieOf(signUp);
    expect(signUp.headers.getSetCookie()[1]).toMatch(
      new RegExp(`^device=usr_[0-9a-z]{16}\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}; Path=/; Max-Age=${SIGN_IN.deviceSeconds}; HttpOnly; SameSite=Strict$`),
    );
    // Someone behind the owner's own address spends the account's attempts and the address's.
    for (let attempt = 1; attempt <= 25; attempt++) await t.send('POST', '/api/session', { body: { name: 'ada', password: `wrong guess number ${attempt}` } });
    const stranger = await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } });
    expect(stranger.status).toBe(429);
    expect(stranger.json.detail).toContain('A browser that signed in to this account before is not held back.');
    const owner = await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD }, cookie: device });
    expect(owner.status).toBe(200);
    // Every sign-in sets a new device cookie (a new nonce), and it works from another address too.
    const next = deviceCookieOf(owner);
    expect(next).not.toBe(device);
    client = '10.3.0.2';
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD }, cookie: next })).status).toBe(200);
  });

  it("count a known browser's own failures with a backoff, apart from everyone else's; signing in clears them", async () => {
    let request = 0;
    const t = await createTestWebApp({ clientAddress: () => `10.4.0.${++request}` });
    const device = deviceCookieOf(await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } }));
    const fromDevice = (password: string) => t.send('POST', '/api/session', { body: { name: 'ada', password }, cookie: device });
    for (let attempt = 1; attempt <= 10; attempt++) expect((await fromDevice(`wrong guess number ${attempt}`)).status).toBe(401);
    const limited = await fromDevice(PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.json.detail).toBe('Too many failed sign-ins from this browser. Try again in 1 minute.');
    // The device's failures are its own: another browser signs in to the account at once.
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(200);
    t.clock.now += MINUTE;
    expect((await fromDevice(PASSWORD)).status).toBe(200);
    // Signing in cleared the device's count: ten free attempts again (the old cookie still names the account).
    for (let attempt = 1; attempt <= 10; attempt++) expect((await fromDevice(`wrong guess number ${attempt}`)).status).toBe(401);
  });

  it("take a forged device cookie, or another account's, for a stranger's browser", async () => {
    let request = 0;
    const t = await createTestWebApp({ clientAddress: () => `10.5.0.${++request}` });
    await t.signUp('ada');
    const bobs = deviceCookieOf(await t.send('POST', '/api/users', { body: { name: 'bob', password: PASSWORD } }));
    const adas = deviceCookieOf(await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } }));
    for (let attempt = 1; attempt <= 10; attempt++) await t.send('POST', '/api/session', { body: { name: 'ada', password: `wrong guess number ${attempt}` } });
    const forged = `${adas.slice(0, -1)}${adas.endsWith('A') ? 'B' : 'A'}`;
    const [, userId = ''] = /^device=(usr_[0-9a-z]{16})/.exec(adas) ?? [];
    const otherDatabase = await createTestWebApp();
    for (const cookie of [bobs, forged, bobs.replace(/usr_[0-9a-z]{16}/, userId), 'device=garbage']) {
      expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD }, cookie })).status, cookie).toBe(429);
    }
    // Signed with another database's secret: not this one's.
    const foreign = deviceCookieOf(await otherDatabase.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } }));
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD }, cookie: foreign })).status).toBe(429);
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD }, cookie: adas })).status).toBe(200);
  });

  it('are counted before the password is checked: guesses sent at once get the limit of checks, no more', async () => {
    // Every request from its own address, so only the account's limit applies.
    let request = 0;
    const t = await createTestWebApp({ clientAddress: () => `10.1.0.${++request}` });
    await t.signUp('ada');
    const guesses = Array.from({ length: 16 }, (_, index) => `wrong guess number ${index}`);
    const answers = await Promise.all([...guesses, PASSWORD].map((password) => t.send('POST', '/api/session', { body: { name: 'ada', password } })));
    const statuses = answers.map((answer) => answer.status);
    // A password was checked for each 401 and 200: ten at most, whatever the order they arrived in.
    expect(statuses.filter((status) => status === 401 || status === 200).length, statuses.join(' ')).toBe(10);
    expect(statuses.filter((status) => status === 429).length, statuses.join(' ')).toBe(7);
  });

  it('are counted in the database: failures on one instance count on another, so N instances allow what one does', async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), 'sign-in-shared-')), 'api.sqlite');
    const [one, two] = [await createTestWebApp({ databasePath }), await createTestWebApp({ databasePath })];
    await one.signUp('ada');
    for (let attempt = 1; attempt <= 10; attempt++) {
      const instance = attempt % 2 === 0 ? one : two;
      expect((await instance.send('POST', '/api/session', { body: { name: 'ada', password: `wrong guess number ${attempt}` } })).status).toBe(401);
    }
    for (const instance of [one, two]) {
      const limited = await instance.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // An hour after the latest guess the counts are forgotten; a sign-in that succeeds gives its attempt back.
    one.clock.now += 60 * MINUTE;
    two.clock.now += 60 * MINUTE;
    expect((await one.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(200);
    const raw = new Database(databasePath, { readonly: true });
    const rows = raw
      .prepare<[], { key: string; attempts: number }>("SELECT key, attempts FROM attempt_counts WHERE key NOT LIKE 'sign-up:%' ORDER BY key")
      .all();
    raw.close();
    // Neither count holds the name or the address in clear. The sign-in that succeeded is counted in the rates of
    // right passwords (per account and per client), and not in the failure counts.
    expect(rows.map((row) => [row.key.split(':')[0], row.attempts])).toEqual([
      ['account-success', 1],
      ['account', 0],
      ['client-success', 1],
      ['client', 0],
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/ada|127\.0\.0\.1|in-process/);
  });

  it('are limited per client: 20 failures over many names block that client, not others', async () => {
    let client = '10.0.0.1';
    const t = await createTestWebApp({ clientAddress: () => client });
    await t.signUp('ada');
    for (let attempt = 1; attempt <= 20; attempt++) {
      expect((await t.send('POST', '/api/session', { body: { name: `guess${attempt}`, password: PASSWORD } })).status).toBe(401);
    }
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(429);
    client = '10.0.0.2';
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } })).status).toBe(200);
  });

  it('do not say whether the account exists: an unknown name is limited like a real one', async () => {
    const t = await createTestWebApp();
    for (let attempt = 1; attempt <= 10; attempt++) await t.send('POST', '/api/session', { body: { name: 'ghost', password: `guess ${attempt} of many` } });
    expect((await t.send('POST', '/api/session', { body: { name: 'ghost', password: PASSWORD } })).status).toBe(429);
  });
});

describe('sign-ups', () => {
  it('are limited per client address: 10, then an hour after the latest, told in minutes; other addresses are not held back', async () => {
    let client = '10.8.0.1';
    const t = await createTestWebApp({ clientAddress: () => client });
    for (let index = 1; index <= 10; index++) await t.signUp(`user-${index}`);
    const limited = await t.send('POST', '/api/users', { body: { name: 'user-11', password: PASSWORD } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBe(3600);
    expect(limited.json.detail).toBe('This address has signed up or tried a taken name 10 times. Try again in 60 minutes.');
    client = '10.8.0.2';
    await t.signUp('user-11');
    client = '10.8.0.1';
    t.clock.now += 60 * MINUTE;
    await t.signUp('user-12');
  });

  it('count an attempt at a taken name like a sign-up, so "this name is taken" is no free oracle', async () => {
    let client = '10.9.0.1';
    const t = await createTestWebApp({ clientAddress: () => client });
    await t.signUp('ada');
    client = '10.9.0.2';
    for (let attempt = 1; attempt <= 10; attempt++) {
      expect((await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } })).status).toBe(409);
    }
    for (const name of ['ada', 'free-name']) expect((await t.send('POST', '/api/users', { body: { name, password: PASSWORD } })).status, name).toBe(429);
  });

  it('are counted in the database: sign-ups on one instance count on another', async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), 'sign-up-shared-')), 'api.sqlite');
    const [one, two] = [await createTestWebApp({ databasePath }), await createTestWebApp({ databasePath })];
    for (let index = 1; index <= SIGN_UP.perClient; index++) await (index % 2 === 0 ? one : two).signUp(`user-${index}`);
    for (const instance of [one, two])
      expect((await instance.send('POST', '/api/users', { body: { name: 'user-last', password: PASSWORD } })).status).toBe(429);
  });
});

/** A word typed twice at least, and as often as it takes to be as long as the shortest password. */
const repeated = (word: string) => word.repeat(Math.max(2, Math.ceil(PASSWORD_MIN / word.length)));

describe('the password rule', () => {
  const REPEATS = 'repeats a character or a group of characters';
  const CONTEXT = "is built on your user name or the service's name";
  it.each([
    // Each as long as the spec's shortest password at least, so that the strength rule, not the length, refuses it.
    { given: 'one letter, as long as the shortest password', name: 'ada', password: 'a'.repeat(PASSWORD_MIN), rule: REPEATS },
    { given: 'spaces, as many as the shortest password', name: 'ada', password: ' '.repeat(PASSWORD_MIN), rule: REPEATS },
    { given: 'a common password typed again and again', name: 'ada', password: repeated('password'), rule: REPEATS },
    { given: 'the user name typed again and again', name: 'adalovelace', password: repeated('adalovelace'), rule: CONTEXT },
    { given: "the service's name typed again and again", name: 'ada', password: repeated('bearerlist'), rule: CONTEXT },
    {
      given: 'a breached password and digits',
      name: 'ada',
      password: `iloveyou${'1234567890'.repeat(3).slice(0, Math.max(8, PASSWORD_MIN - 8))}`,
      rule: 'a list of common and breached passwords',
    },
    {
      given: 'the alphabet in order',
      name: 'ada',
      password: 'abcdefghijklmnopqrstuvwxyz'.slice(0, Math.max(16, PASSWORD_MIN)),
      rule: 'is a sequence of letters or digits',
    },
  ])('refuses $given with 422, naming the rule it breaks, without sending the password back', async ({ name, password, rule }) => {
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', { body: { name, password } });
    expect(response.status).toBe(422);
    expect(response.json.errors).toEqual([{ in: 'body', pointer: '/password', detail: expect.stringContaining(rule) }]);
    expect(response.text).not.toContain(JSON.stringify(password));
    expect(await t.store.findUserByName(name)).toBeUndefined();
  });

  it('lets a passphrase through, and costs no sign-up when it refuses one', async () => {
    const t = await createTestWebApp();
    for (let attempt = 1; attempt <= 12; attempt++)
      expect((await t.send('POST', '/api/users', { body: { name: 'ada', password: 'passwordpassword' } })).status).toBe(422);
    await t.signUp('ada', 'a few unrelated words make a strong one');
  });
});

describe('passwords in Unicode', () => {
  it('are normalized (NFKC) before they are hashed and compared: full-width letters, or a decomposed accent, are the same password', async () => {
    const t = await createTestWebApp();
    await t.signUp('ada', 'ｆｕｌｌｗｉｄｔｈ ｐａｓｓ ｐｈｒａｓｅ ９');
    await t.signUp('bob', 'cafe\u0301 au lait, sans sucre');
    for (const [name, password] of [
      ['ada', 'ｆｕｌｌｗｉｄｔｈ ｐａｓｓ ｐｈｒａｓｅ ９'],
      ['ada', 'fullwidth pass phrase 9'],
      ['bob', 'café au lait, sans sucre'],
      ['bob', 'cafe\u0301 au lait, sans sucre'],
    ]) {
      expect((await t.send('POST', '/api/session', { body: { name, password } })).status, password).toBe(200);
    }
  });

  it('sign in a user whose hash was made from the password as typed, and make it again from the normalized form', async () => {
    const t = await createTestWebApp();
    const typed = 'ｆｕｌｌｗｉｄｔｈ ｐａｓｓ ｐｈｒａｓｅ ９';
    // As the service hashed passwords before it normalized them.
    await t.store.createUser('ada', new Date(t.clock.now).toISOString(), await hashPassword(typed));
    const before = (await t.store.findUserCredential('ada'))?.passwordHash;
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: 'fullwidth pass phrase 9' } })).status).toBe(401);
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: typed } })).status).toBe(200);
    expect((await t.store.findUserCredential('ada'))?.passwordHash).not.toBe(before);
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: 'fullwidth pass phrase 9' } })).status).toBe(200);
    expect((await t.send('POST', '/api/session', { body: { name: 'ada', password: typed } })).status).toBe(200);
  });
});

describe('the secrets', () => {
  it('never reach a log line: no password, session token or API key', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    await t.send('POST', '/api/session', { body: { name: 'ada', password: 'a wrong password here' } });
    const created = await t.send('POST', '/api/keys', { cookie, body: { name: 'CI' } });
    const logged = JSON.stringify(t.logs);
    expect(logged).not.toContain(PASSWORD);
    expect(logged).not.toContain('a wrong password here');
    expect(logged).not.toContain(cookie.split('=')[1]);
    expect(logged).not.toContain(created.json.secret);
    expect(t.logs.some((line) => line['path'] === '/api/keys' && line['status'] === 201)).toBe(true);
  });

  it('leave nothing in clear in the database: every text and blob of every table is searched', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'account-secrets-'));
    try {
      const databasePath = join(scratch, 'api.sqlite');
      const t = await createTestWebApp({ databasePath });
      const { cookie } = await t.signUp('ada');
      const created = await t.send('POST', '/api/keys', { cookie, body: { name: 'CI' } });
      // A password typed into the name field is counted as a failed sign-in under that "name": not in clear either.
      expect((await t.send('POST', '/api/session', { body: { name: PASSWORD, password: 'not it at all' } })).status).toBe(401);
      await t.store.close();
      const raw = new Database(databasePath, { readonly: true });
      const tables = raw.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
      const everything = tables
        .map(({ name }) =>
          JSON.stringify(raw.prepare(`SELECT * FROM "${name}"`).all(), (_key, value) => (Buffer.isBuffer(value) ? value.toString('latin1') : value)),
        )
        .join('\n');
      raw.close();
      expect(tables.map(({ name }) => name)).toEqual(expect.arrayContaining(['users', 'api_keys', 'sessions', 'key_events']));
      for (const secret of [PASSWORD, PASSWORD.toLowerCase(), cookie.split('=')[1] ?? '', created.json.secret]) expect(everything).not.toContain(secret);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

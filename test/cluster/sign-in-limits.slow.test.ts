/**
 * The sign-in limits over two real server processes on one real PostgreSQL (the run's, from the global
 * setup): guesses sent to both at once are counted before any password is checked, so the account's
 * limit holds across instances, not once per instance; and a browser that signed in on one instance is
 * known to the other, so others' guesses do not hold it back there either. Sign-ups from one address are
 * counted by both together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { freshDatabase } from '../helpers/postgres.js';

const PASSWORD = 'correct horse battery staple';
let servers: ServerProcess[] = [];
let webUrls: string[] = [];

beforeAll(async () => {
  const databaseUrl = await freshDatabase('sign-in-limits');
  const env = { DATABASE_URL: databaseUrl, NODE_ENV: 'development', LOG_LEVEL: 'warn' };
  servers = await Promise.all([0, 1].map(() => startServer({ databasePath: ':unused:', env, timeoutMs: 30_000 })));
  webUrls = servers.map((server) => {
    const url = /^Web application on (\S+)$/m.exec(server.stderr())?.[1];
    if (!url) throw new Error(`the server did not print where the web application is:\n${server.stdout()}`);
    return url;
  });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

/** A request as the pages send it; the answer's status and headers. */
async function post(webUrl: string, path: string, body: unknown, cookie?: string): Promise<{ status: number; headers: Headers }> {
  const response = await fetch(`${webUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: webUrl, 'sec-fetch-site': 'same-origin', ...(cookie && { cookie }) },
    body: JSON.stringify(body),
  });
  await response.body?.cancel();
  return { status: response.status, headers: response.headers };
}

describe('sign-in limits on two instances of one PostgreSQL', () => {
  it('check at most the account limit of passwords when guesses go to both instances at once', async () => {
    const [one = '', two = ''] = webUrls;
    expect((await post(one, '/api/users', { name: 'ada', password: PASSWORD })).status).toBe(201);
    // Fourteen to each instance: within each one's hashing queue (1 + 16), so only the limit can refuse them.
    const guesses = Array.from({ length: 28 }, (_, index) => ({ url: index % 2 === 0 ? one : two, password: `wrong guess number ${index}` }));
    const statuses = await Promise.all(
      guesses.map(({ url, password }) => post(url, '/api/session', { name: 'ada', password }).then((answer) => answer.status)),
    );
    // At most the account's ten are checked. Fewer may be: a guess the client's count refused at that instant gives its
    // account attempt back, and the client's count also holds guesses that the account's is about to refuse.
    const checked = statuses.filter((status) => status === 401).length;
    expect(checked, statuses.join(' ')).toBeLessThanOrEqual(10);
    expect(checked, statuses.join(' ')).toBeGreaterThan(0);
    expect(statuses.filter((status) => status === 429).length, statuses.join(' ')).toBe(28 - checked);
  });

  it("let a browser that signed up on one instance sign in on the other while strangers' attempts at the account are spent", async () => {
    const [one = '', two = ''] = webUrls;
    const signedUp = await post(two, '/api/users', { name: 'bob', password: PASSWORD });
    expect(signedUp.status).toBe(201);
    const device = signedUp.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith('device='))
      ?.split(';')[0];
    expect(device).toMatch(/^device=usr_/);
    // One after another: sent at once, a guess the client's count refused gives its account attempt back, so fewer
    // than ten may be counted (the first case covers guesses at once). Here the account's free attempts are spent.
    const guesses: number[] = [];
    for (let index = 0; index < 12; index++) guesses.push((await post(one, '/api/session', { name: 'bob', password: `wrong guess ${index}` })).status);
    expect(guesses).toEqual([...Array<number>(10).fill(401), 429, 429]);
    expect((await post(one, '/api/session', { name: 'bob', password: PASSWORD })).status).toBe(429);
    expect((await post(one, '/api/session', { name: 'bob', password: PASSWORD }, device)).status).toBe(200);
  });

  it('count the sign-ups of one address on both instances together, attempts at a taken name included', async () => {
    const [one = '', two = ''] = webUrls;
    // The tests above signed up two accounts from this address; an attempt at a taken name is the third.
    expect((await post(one, '/api/users', { name: 'ada', password: PASSWORD })).status).toBe(409);
    const statuses: number[] = [];
    for (let index = 0; index < 9; index++)
      statuses.push((await post(index % 2 === 0 ? one : two, '/api/users', { name: `user-${index}`, password: PASSWORD })).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 201, 429, 429]);
  });
});

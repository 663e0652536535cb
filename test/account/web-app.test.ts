import { describe, expect, it } from 'vitest';
import { accountChecker, createTestWebApp, PASSWORD } from '../helpers/web-app.js';

describe('unsafe requests from another site', () => {
  const crossSite = [
    { given: 'an Origin of another site', headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': '' } },
    { given: 'Sec-Fetch-Site: cross-site', headers: { Origin: '', 'Sec-Fetch-Site': 'cross-site' } },
    { given: 'Sec-Fetch-Site: same-site (a sibling subdomain)', headers: { Origin: '', 'Sec-Fetch-Site': 'same-site' } },
    { given: 'a same-origin Sec-Fetch-Site but a foreign Origin', headers: { Origin: 'http://127.0.0.1:9999', 'Sec-Fetch-Site': 'same-origin' } },
    { given: 'a DNS-rebound name', headers: { Origin: 'http://rebound.example:3001', Host: 'rebound.example:3001', 'Sec-Fetch-Site': '' } },
    { given: 'Origin: null (a sandboxed frame)', headers: { Origin: 'null', 'Sec-Fetch-Site': '' } },
  ];

  it.each(crossSite)('are refused with 403 before anything is read or done: $given', async ({ headers }) => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const createKey = await t.send('POST', '/api/keys', { cookie, body: { name: 'forged' }, headers });
    expect(createKey.status).toBe(403);
    expect(createKey.json.type).toBe('urn:problem-type:forbidden');
    const signOut = await t.send('DELETE', '/api/session', { cookie, headers });
    expect(signOut.status).toBe(403);
    expect((await t.send('GET', '/api/keys', { cookie })).json.keys).toEqual([]);
  });

  it('refuse a cross-site HTML form post (urlencoded) with 403, not 415: the origin is checked whatever the body', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const response = await t.send('POST', '/api/keys', {
      cookie,
      rawBody: 'name=forged',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(response.status).toBe(403);
  });

  it('let same-origin pages and clients that are not browsers (no Origin, no Sec-Fetch-Site) through', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    expect((await t.send('POST', '/api/keys', { cookie, body: { name: 'page' } })).status).toBe(201);
    expect((await t.send('POST', '/api/keys', { cookie, body: { name: 'script' }, headers: { Origin: '', 'Sec-Fetch-Site': '' } })).status).toBe(201);
  });

  it('are checked against WEB_ORIGIN when it is set', async () => {
    const t = await createTestWebApp({ origin: 'https://keys.example.com' });
    const ok = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } });
    expect(ok.status).toBe(201);
    const forged = await t.send('POST', '/api/users', {
      body: { name: 'bob', password: PASSWORD },
      headers: { Origin: 'http://127.0.0.1:3001', Host: '127.0.0.1:3001' },
    });
    expect(forged.status).toBe(403);
  });
});

describe('the account API over HTTP', () => {
  // Every operation of the spec, so one added later is covered too. Before the spec documented 422 on the
  // operations that take no input, such a request got a 500 (the server refused to send an undocumented 422).
  it.each(accountChecker.operations.map((operation) => ({ operation, name: `${operation.method} ${operation.path}` })))(
    'refuses an unknown query parameter on $name with 422 naming it in the query',
    async ({ operation }) => {
      const t = await createTestWebApp();
      const { cookie } = await t.signUp('ada');
      const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        String(operation.parameters.find((parameter) => parameter.name === name)?.example),
      );
      const body = Object.values(Object.values(operation.requestBody?.content ?? {})[0]?.examples ?? {})[0];
      const response = await t.send(operation.method, `/api${path}?unknownProbe=1`, { cookie, ...(body !== undefined && { body }) });
      expect(response.status, response.text).toBe(422);
      expect(response.json.errors).toContainEqual({ in: 'query', pointer: '/unknownProbe', detail: expect.any(String) });
    },
  );

  it('answers an unknown path under /api with a problem, a known path with another method with 405 and Allow', async () => {
    const t = await createTestWebApp();
    const unknown = await t.send('GET', '/api/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
    const wrongMethod = await t.send('PUT', '/api/keys', { body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('limits each client to the spec rate and answers 429 with Retry-After past it', async () => {
    const t = await createTestWebApp({ limits: { rateLimit: { requests: 3, windowSeconds: 60 } } });
    for (let index = 0; index < 3; index++) expect((await t.send('GET', '/api/session')).status).toBe(401);
    const limited = await t.send('GET', '/api/session');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
  });

  it('answers requests without a live session with 429 past the failed-authentication budget, and still serves a live session', async () => {
    const t = await createTestWebApp({ limits: { failedAuthentication: { perAddress: 3, windowSeconds: 60 } } });
    const { cookie } = await t.signUp('ada');
    for (let index = 0; index < 3; index++) expect((await t.send('GET', '/api/keys', { cookie: `session=${'x'.repeat(43)}` })).status).toBe(401);
    const limited = await t.send('GET', '/api/keys');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect((await t.send('GET', '/api/keys', { cookie })).status).toBe(200);
  });

  it('has no failed-authentication budget in all: requests without a session from many addresses never refuse another client', async () => {
    const t = await createTestWebApp({ clientAddress: (c) => c.req.header('x-test-client') ?? 'in-process' });
    const { cookie } = await t.signUp('ada');
    const statuses = new Map<number, number>();
    for (let client = 0; client < 21; client++)
      for (let index = 0; index < 100; index++) {
        const { status } = await t.send('GET', '/api/keys', { cookie: `session=${'x'.repeat(43)}`, headers: { 'X-Test-Client': `flood-${client}` } });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 2_100 });
    expect((await t.send('GET', '/api/session', { headers: { 'X-Test-Client': 'newcomer' } })).status).toBe(401);
    expect((await t.send('GET', '/api/keys', { cookie, headers: { 'X-Test-Client': 'newcomer' } })).status).toBe(200);
  });

  it("counts a live session's requests against its own quota: others at its address never use it up", async () => {
    const t = await createTestWebApp({
      limits: { rateLimit: { requests: 3, windowSeconds: 60 } },
      clientAddress: (c) => c.req.header('x-test-client') ?? 'in-process',
    });
    const { cookie } = await t.signUp('ada');
    const office = { 'X-Test-Client': 'office' };
    for (let index = 0; index < 3; index++) expect((await t.send('GET', '/api/session', { headers: office })).status).toBe(401);
    expect((await t.send('GET', '/api/session', { headers: office })).json.detail).toMatch(/^This address has sent 3 requests/);
    for (let index = 0; index < 3; index++) expect((await t.send('GET', '/api/keys', { cookie, headers: office })).status).toBe(200);
    const own = await t.send('GET', '/api/keys', { cookie, headers: office });
    expect(own.status).toBe(429);
    expect(own.json.detail).toMatch(/^This session has sent 3 requests/);
    // Sign-in is counted per address whatever cookie it carries: a session cannot lend its quota to guessing.
    expect((await t.send('POST', '/api/session', { cookie, headers: office, body: { name: 'ada', password: 'wrong password, long enough' } })).status).toBe(
      429,
    );
  });

  it('sends the JSON API security headers on every answer, and no-store', async () => {
    const t = await createTestWebApp();
    const response = await t.send('GET', '/api/session');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the pages', () => {
  it.each(['/', '/sign-in', '/sign-up', '/settings'])('serve %s as HTML with a page CSP: own script and style only, no inline code', async (path) => {
    const t = await createTestWebApp();
    const response = await t.send('GET', path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.text).toContain('<html lang="en">');
    expect(response.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(response.text).toContain('<meta name="public-api-url" content="http://127.0.0.1:3000">');
    // Nothing from the network: no absolute URL in a src or href, no inline script or style.
    expect(response.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(response.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(response.text).not.toMatch(/<style|style="/);
  });

  it('serve the script and stylesheet, built from the sources, and 404 an unknown page as HTML', async () => {
    const t = await createTestWebApp();
    const script = await t.send('GET', '/assets/app.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain('/api');
    expect(script.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
    expect((await t.send('GET', '/assets/app.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const missing = await t.send('GET', '/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('post every form with a password field to a page that answers the post, so a password never goes into a URL', async () => {
    const t = await createTestWebApp();
    let checked = 0;
    for (const path of ['/sign-in', '/sign-up', '/settings']) {
      const html = (await t.send('GET', path)).text;
      for (const [, attributes = '', body = ''] of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
        if (!/type="password"/.test(body)) continue;
        checked++;
        // Without `method`, a form is sent as GET: the password would be in the URL (and the history, the logs).
        expect(attributes, path).toMatch(/\bmethod="post"/);
        const action = /\baction="([^"]+)"/.exec(attributes)?.[1] ?? '';
        expect(action, path).toMatch(/^\/[a-z-]+$/);
        // The action answers the post (JavaScript off, or not run yet): back to the page, the body unread.
        const answer = await t.send('POST', action, {
          rawBody: 'name=ada&password=a+password+typed+before+the+script',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        expect(answer.status, action).toBe(303);
        expect(answer.headers.get('location')).toBe(action);
        expect(answer.headers.get('cache-control')).toBe('no-store');
      }
    }
    expect(checked).toBe(3);
  });

  it('say on the sign-in and sign-up pages, without JavaScript, that it is needed', async () => {
    const t = await createTestWebApp();
    for (const path of ['/sign-in', '/sign-up']) expect((await t.send('GET', path)).text, path).toMatch(/<noscript>[^<]*<p[^>]*>[^<]*needs JavaScript/);
  });

  it('give every form control a label', async () => {
    const t = await createTestWebApp();
    for (const path of ['/sign-in', '/sign-up', '/settings']) {
      const html = (await t.send('GET', path)).text;
      const ids = [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((match) => match[1]);
      expect(ids.length, path).toBeGreaterThan(0);
      for (const id of ids) expect(html, `${path} #${id}`).toContain(`<label for="${id}">`);
    }
  });
});

/**
 * Response headers: the secure headers of a JSON API on every answer (success and
 * problem alike), no X-Powered-By, and CORS off unless origins are configured;
 * when on, only those origins are echoed and credentials are never allowed.
 */
import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec.js';
import { createTestApp } from '../helpers/app.js';

/** The OWASP REST Security Cheat Sheet's set for a JSON API. */
const SECURE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** Hono's extras for HTML pages, left out on purpose. */
const BROWSER_PAGE_HEADERS = [
  'x-xss-protection',
  'x-download-options',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-permitted-cross-domain-policies',
  'cross-origin-opener-policy',
];

const ALLOWED = 'https://app.example';

async function world(corsOrigins?: string[]) {
  const t = await createTestApp({ limits: { rateLimit: { requests: 1, windowSeconds: 60 } }, ...(corsOrigins && { corsOrigins }) });
  const { key } = await t.addUser('ann');
  // The quota is one request per key, so each refusal after authentication gets a key of its own.
  const fresh = async () => (await t.addUser('bob')).key;
  return { t, key, fresh };
}

/** One request of each kind of answer: success, and each problem the app writes. */
async function everyKindOfAnswer({ t, key, fresh }: Awaited<ReturnType<typeof world>>, headers: Record<string, string> = {}) {
  const json = { 'Content-Type': 'application/json', ...headers };
  return {
    200: await t.send('POST', '/', { key, body: {}, headers }),
    429: await t.send('POST', '/', { key, body: {}, headers }),
    400: await t.send('POST', '/', { key: await fresh(), headers: json, rawBody: new TextEncoder().encode('{') }),
    401: await t.send('GET', '/shared', { headers }),
    404: await t.send('GET', '/nowhere', { headers }),
    405: await t.send('DELETE', '/shared', { headers }),
    413: await t.send('POST', '/shared', { key: await fresh(), headers: json, rawBody: new TextEncoder().encode(`{"sort":"${'a'.repeat(9000)}"}`) }),
    415: await t.send('POST', '/shared', {
      key: await fresh(),
      headers: { ...headers, 'Content-Type': 'text/plain' },
      rawBody: new TextEncoder().encode('{}'),
    }),
    422: await t.send('GET', '/shared?sort=up', { key: await fresh(), headers }),
  };
}

describe('secure response headers', () => {
  it('are on every answer, success or problem, and X-Powered-By is not', async () => {
    for (const [status, response] of Object.entries(await everyKindOfAnswer(await world()))) {
      expect(response.status).toBe(Number(status));
      for (const [name, value] of Object.entries(SECURE_HEADERS)) expect(response.headers.get(name), `${name} on ${status}`).toBe(value);
      for (const name of BROWSER_PAGE_HEADERS) expect(response.headers.get(name), `${name} on ${status}`).toBeNull();
      expect(response.headers.get('x-powered-by')).toBeNull();
      expect(response.headers.get('server')).toBeNull();
      expect(response.headers.get('x-request-id')).toMatch(/^[\w=-]+$/);
    }
  });
});

describe('CORS', () => {
  it('is off by default: no Access-Control-* header for any origin, and a preflight is a 405', async () => {
    const { t } = await world();
    for (const response of Object.values(await everyKindOfAnswer(await world(), { Origin: ALLOWED }))) {
      expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    const preflight = await t.send('OPTIONS', '/', {
      headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('allow')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('when configured, echoes only a listed origin, on success and on problems, and never allows credentials', async () => {
    for (const [status, response] of Object.entries(await everyKindOfAnswer(await world([ALLOWED, 'https://admin.example']), { Origin: ALLOWED }))) {
      expect(response.headers.get('access-control-allow-origin'), `on ${status}`).toBe(ALLOWED);
      expect(response.headers.get('access-control-allow-credentials'), `on ${status}`).toBeNull();
      expect(response.headers.get('vary'), `on ${status}`).toMatch(/\bOrigin\b/i);
      expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual(
        expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id']),
      );
    }
  });

  it.each(['https://evil.example', 'null', 'https://app.example.evil.example', 'http://app.example', 'HTTPS://APP.EXAMPLE', ''])(
    'does not echo the origin %j',
    async (origin) => {
      const { t, key } = await world([ALLOWED]);
      const response = await t.send('POST', '/', { key, body: {}, headers: { Origin: origin } });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    },
  );

  it("answers a preflight from a listed origin with the contract's methods and headers, without credentials", async () => {
    const { t } = await world([ALLOWED]);
    const response = await t.app.request('/shared', {
      method: 'OPTIONS',
      headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-methods')?.split(',').sort()).toEqual(['GET', 'HEAD', 'POST']);
    // The bearer scheme, a JSON body, Prefer, and each header parameter of the spec (a new one needs no change here).
    const headerParameters = readOperations(loadSpec()).flatMap((operation) =>
      operation.parameters.filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name.toLowerCase()),
    );
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase().split(',').sort()).toEqual(
      [...new Set(['authorization', 'content-type', 'prefer', ...headerParameters])].sort(),
    );
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-max-age')).toBe('600');
    const stranger = await t.app.request('/shared', {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    expect(stranger.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

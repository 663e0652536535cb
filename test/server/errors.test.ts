import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.js';
import { requestContract } from '../helpers/contract.js';
import { allowFor, assumeSpecMethods, LIMIT, SORT } from '../helpers/spec-fixture.js';

// The rows below send to / and /shared as the spec declares them.
assumeSpecMethods(import.meta.url, { '/': ['POST'], '/shared': ['GET', 'POST'] });

/** Each request after authentication, and the problem the contract says it gets. */
const cases: Array<{
  given: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  rawBody?: string;
  body?: unknown;
  status: number;
  type: string;
}> = [
  { given: 'malformed JSON', method: 'POST', path: '/', rawBody: '{"sort":', status: 400, type: 'malformed-request' },
  { given: 'a JSON array', method: 'POST', path: '/shared', body: ['asc'], status: 400, type: 'malformed-request' },
  { given: 'an empty body', method: 'POST', path: '/', rawBody: '', status: 400, type: 'malformed-request' },
  { given: 'text/plain', method: 'POST', path: '/', headers: { 'Content-Type': 'text/plain' }, rawBody: '{}', status: 415, type: 'unsupported-media-type' },
  {
    given: 'a latin-1 charset',
    method: 'POST',
    path: '/',
    headers: { 'Content-Type': 'application/json; charset=iso-8859-1' },
    rawBody: '{}',
    status: 415,
    type: 'unsupported-media-type',
  },
  {
    given: 'a body over the limit',
    method: 'POST',
    path: '/',
    body: { sort: 'a'.repeat(requestContract.limits.maxBodyBytes) },
    status: 413,
    type: 'content-too-large',
  },
  { given: 'sort outside the enum', method: 'POST', path: '/', body: { sort: 'up' }, status: 422, type: 'validation-failed' },
  { given: 'limit over the maximum', method: 'GET', path: `/shared?limit=${LIMIT.maximum + 1}`, status: 422, type: 'validation-failed' },
  { given: 'limit that is not a number', method: 'GET', path: '/shared?limit=ten', status: 422, type: 'validation-failed' },
  { given: 'an unknown query parameter', method: 'GET', path: '/shared?srot=asc', status: 422, type: 'validation-failed' },
  { given: 'a repeated query parameter', method: 'GET', path: `/shared?sort=${SORT.default}&sort=${SORT.default}`, status: 422, type: 'validation-failed' },
  { given: 'a query string on a POST', method: 'POST', path: '/?sort=asc', body: {}, status: 422, type: 'validation-failed' },
  { given: 'an unknown path', method: 'GET', path: '/nope', status: 404, type: 'not-found' },
  { given: 'a wrong method', method: 'PUT', path: '/shared', status: 405, type: 'method-not-allowed' },
];

describe("every error is the contract's problem+json", () => {
  it.each(cases)('$given: $status', async ({ method, path, headers, rawBody, body, status, type }) => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const response = await t.send(method, path, {
      key,
      headers: { ...(rawBody !== undefined && { 'Content-Type': 'application/json' }), ...headers },
      ...(rawBody !== undefined && { rawBody }),
      ...(body !== undefined && { body }),
    });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.json).toMatchObject({
      type: `urn:problem-type:${type}`,
      status,
      instance: path.split('?')[0],
      requestId: response.headers.get('x-request-id'),
    });
  });

  it('answers a body sent without a content type with 415', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    // A byte body: a string body would get text/plain from the Request constructor.
    const response = await t.send('POST', '/shared', { key, rawBody: new TextEncoder().encode('{}') });
    expect(response.status).toBe(415);
  });

  it('lists each violation with its own pointer', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const response = await t.send('POST', '/', { key, body: { sort: 1, limit: 0, srot: 'asc' } });
    expect(response.json.errors).toEqual(
      expect.arrayContaining([
        { in: 'body', pointer: '/srot', detail: 'is not a known field' },
        { in: 'body', pointer: '/sort', detail: expect.any(String) },
        { in: 'body', pointer: '/limit', detail: `must be >= ${LIMIT.minimum}` },
      ]),
    );
  });

  it('answers 405 with Allow listing the methods the spec declares for the path', async () => {
    const t = await createTestApp();
    expect((await t.send('GET', '/')).headers.get('allow')).toBe(allowFor('/'));
    expect((await t.send('DELETE', '/shared')).headers.get('allow')).toBe(allowFor('/shared'));
  });

  it('turns an unexpected failure into a 500 problem without a stack trace, and logs it', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    t.store.listItems = () => {
      throw new Error('disk on fire at /secret/path');
    };
    const response = await t.send('POST', '/', { key, body: {}, expectServerError: true });
    expect(response.status).toBe(500);
    expect(response.text).not.toContain('disk on fire');
    expect(response.text).not.toContain('at ');
    expect(t.logs.find((entry) => entry['level'] === 'error')).toMatchObject({ message: 'unhandled error', requestId: response.json.requestId });
  });
});

describe('mounting under a base path', () => {
  it('serves the operations under BASE_PATH, with and without the trailing slash for the root', async () => {
    const t = await createTestApp({ basePath: '/api' });
    const { key } = await t.addUser('ann');
    expect((await t.send('POST', '/', { key, body: {} })).status).toBe(200);
    expect((await t.send('POST', '', { key, body: {} })).status).toBe(200);
    expect((await t.send('GET', '/shared', { key })).status).toBe(200);
    expect((await t.send('GET', '/other', { key })).status).toBe(404);
    expect((await t.send('GET', '', { key })).headers.get('allow')).toBe('POST');
  });
});

describe('logging', () => {
  it('writes one line per request with method, path, status, duration and request id, and never the key', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    await t.send('POST', '/', { key, body: {} });
    await t.send('GET', `/${key}`, { key });
    expect(t.logs).toHaveLength(2);
    expect(t.logs[0]).toMatchObject({ method: 'POST', path: '/', status: 200, durationMs: expect.any(Number), requestId: expect.any(String) });
    expect(JSON.stringify(t.logs)).not.toContain(key);
    expect(t.logs[1]?.['path']).toBe('/tka_[REDACTED]');
  });
});

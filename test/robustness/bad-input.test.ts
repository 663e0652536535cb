/**
 * The bad-input matrix, in-process: each row is one hostile or broken request
 * and the status and problem `type` the contract gives it. `send` also checks
 * every answer against the spec. Rows that only a real socket can express (two
 * Authorization header lines, oversized headers, smuggling-style framing) are
 * in bad-input-wire.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProblemType } from '../../src/contract/types.js';
import type { Limits } from '../../src/http/request-contract.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { operationHandlers } from '../../src/server/operations.js';
import { createTestApp, START } from '../helpers/app.js';
import { requestContract } from '../helpers/contract.js';
import { allowFor, assumeSpecMethods, SORT } from '../helpers/spec-fixture.js';

// The rows send to POST-only /, to /shared (GET and POST) and to /items as a path the spec does not have.
assumeSpecMethods(import.meta.url, { '/': ['POST'], '/shared': ['GET', 'POST'], '/items': [] });

const MAX = requestContract.limits.maxBodyBytes;
const RAISED: Partial<Limits> = { maxBodyBytes: 1_048_576 };
const bytes = (text: string) => new TextEncoder().encode(text);
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** A body streamed in 1 KiB chunks with no Content-Length, as a chunked upload arrives. */
const chunked = (data: Uint8Array) => () =>
  new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      for (let at = 0; at < data.byteLength; at += 1024) controller.enqueue(data.slice(at, at + 1024));
      controller.close();
    },
  });

type Key = 'valid' | 'none' | 'revoked' | 'unknown';

interface Row {
  given: string;
  method?: string;
  path?: string;
  /** Whose key goes in `Authorization: Bearer`, unless `authorization` gives the header itself. */
  key?: Key;
  /** The whole Authorization header; `{key}` stands for the valid key. */
  authorization?: string;
  contentType?: string | null;
  /** Body text or bytes, or a factory for a body that can be read only once; `{}` for a POST unless given, none when null. */
  body?: string | Uint8Array | (() => BodyInit) | null;
  /** Declare the body's length in Content-Length. */
  sized?: boolean;
  limits?: Partial<Limits>;
  want: { status: number; type?: ProblemType; pointer?: string; headers?: Record<string, string | RegExp> };
  /** A refusal the handler itself makes (a cursor it did not issue); every other refusal comes before any handler. */
  byHandler?: true;
  /** For 200: what the list answer must show. */
  check?: (page: { items: Array<{ createdAt: string; id: string }>; nextCursor: string | null }) => void;
}

const ascending = (page: { items: Array<{ createdAt: string }> }) =>
  expect(page.items.map((item) => item.createdAt)).toEqual(page.items.map((item) => item.createdAt).sort());
const descending = (page: { items: Array<{ createdAt: string }> }) =>
  expect(page.items.map((item) => item.createdAt)).toEqual(
    page.items
      .map((item) => item.createdAt)
      .sort()
      .reverse(),
  );

/** The check of a value of the spec's Sort. */
function inOrder(sort: string): NonNullable<Row['check']> {
  if (sort === 'asc') return ascending;
  if (sort === 'desc') return descending;
  throw new Error(
    `update this fixture: test/robustness/bad-input.test.ts checks the orders asc and desc, and the spec's Sort has ${sort}: add its check to inOrder`,
  );
}

const BAD = 'urn:problem-type:malformed-request';
const TOO_LARGE = 'urn:problem-type:content-too-large';
const MEDIA = 'urn:problem-type:unsupported-media-type';
const INVALID = 'urn:problem-type:validation-failed';
const UNAUTHORIZED = 'urn:problem-type:unauthorized';
const invalidToken = /^Bearer realm="api", error="invalid_token"/;

const rows: Row[] = [
  // Bodies that are not a JSON object.
  { given: 'malformed JSON', body: '{"sort":', want: { status: 400, type: BAD } },
  { given: 'single quotes', body: "{'sort':'asc'}", want: { status: 400, type: BAD } },
  { given: 'a trailing comma', body: '{"sort":"asc",}', want: { status: 400, type: BAD } },
  { given: 'two JSON values', body: '{}{}', want: { status: 400, type: BAD } },
  { given: 'an empty body', body: '', want: { status: 400, type: BAD } },
  { given: 'no body at all', body: null, want: { status: 400, type: BAD } },
  { given: 'a body of whitespace', body: ' \r\n\t ', want: { status: 400, type: BAD } },
  { given: 'JSON null', body: 'null', want: { status: 400, type: BAD } },
  { given: 'a JSON array', body: '[{"sort":"asc"}]', want: { status: 400, type: BAD } },
  { given: 'a JSON string', body: '"asc"', want: { status: 400, type: BAD } },
  { given: 'a JSON number', body: '42', want: { status: 400, type: BAD } },
  { given: 'JSON true', body: 'true', want: { status: 400, type: BAD } },
  // Content-Type.
  { given: 'no Content-Type', contentType: null, body: '{}', want: { status: 415, type: MEDIA } },
  { given: 'Content-Type text/plain', contentType: 'text/plain', body: '{}', want: { status: 415, type: MEDIA } },
  {
    given: 'Content-Type application/x-www-form-urlencoded',
    contentType: 'application/x-www-form-urlencoded',
    body: 'sort=asc',
    want: { status: 415, type: MEDIA },
  },
  {
    given: 'Content-Type application/json; charset=iso-8859-1',
    contentType: 'application/json; charset=iso-8859-1',
    body: '{}',
    want: { status: 415, type: MEDIA },
  },
  { given: 'Content-Type application/jsonp', contentType: 'application/jsonp', body: '{}', want: { status: 415, type: MEDIA } },
  { given: 'Content-Type application/json; charset=utf-8 (accepted)', contentType: 'application/json; charset=utf-8', body: '{}', want: { status: 200 } },
  { given: 'Content-Type APPLICATION/JSON; Charset="UTF-8" (accepted)', contentType: 'APPLICATION/JSON; Charset="UTF-8"', body: '{}', want: { status: 200 } },
  {
    given: 'a wrong Content-Type and a broken body: the media type is checked first',
    contentType: 'text/plain',
    body: '{"sort":',
    want: { status: 415, type: MEDIA },
  },
  // Size.
  { given: `a body of exactly ${MAX} bytes`, body: `{${' '.repeat(MAX - 2)}}`, sized: true, want: { status: 200 } },
  { given: `a body of ${MAX + 1} bytes with Content-Length`, body: `{${' '.repeat(MAX - 1)}}`, sized: true, want: { status: 413, type: TOO_LARGE } },
  {
    given: `a body of ${MAX + 1} bytes without Content-Length (chunked)`,
    body: chunked(bytes(`{${' '.repeat(MAX - 1)}}`)),
    want: { status: 413, type: TOO_LARGE },
  },
  { given: 'a 1 MiB body with Content-Length', body: `{"sort":"${'a'.repeat(1 << 20)}"}`, sized: true, want: { status: 413, type: TOO_LARGE } },
  { given: 'a 1 MiB body without Content-Length (chunked)', body: chunked(bytes(`{"sort":"${'a'.repeat(1 << 20)}"}`)), want: { status: 413, type: TOO_LARGE } },
  {
    given: 'an oversized body that is not even JSON: size is checked before parsing',
    body: chunked(bytes('x'.repeat(MAX * 2))),
    want: { status: 413, type: TOO_LARGE },
  },
  // Deep nesting.
  { given: 'a 4,000-deep array in a field, within the limit', body: `{"sort":${nested(4000)}}`, want: { status: 422, type: INVALID, pointer: '/sort' } },
  { given: 'a 4,000-deep array at the top level, within the limit', body: nested(4000), want: { status: 400, type: BAD } },
  { given: 'a 10,000-deep array in a field, beyond the limit', body: `{"sort":${nested(10_000)}}`, want: { status: 413, type: TOO_LARGE } },
  { given: 'a 10,000-deep array at the top level, beyond the limit, chunked', body: chunked(bytes(nested(10_000))), want: { status: 413, type: TOO_LARGE } },
  {
    given: 'a 10,000-deep array in a field, limit raised to 1 MiB',
    limits: RAISED,
    body: `{"sort":${nested(10_000)}}`,
    want: { status: 422, type: INVALID, pointer: '/sort' },
  },
  { given: 'a 10,000-deep array at the top level, limit raised to 1 MiB', limits: RAISED, body: nested(10_000), want: { status: 400, type: BAD } },
  {
    given: 'a 100,000-deep object under an unknown field, limit raised to 1 MiB',
    limits: RAISED,
    body: `{"x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`,
    want: { status: 422, type: INVALID, pointer: '/x' },
  },
  {
    given: 'a 500,000-deep array in a field, limit raised to 1 MiB',
    limits: RAISED,
    body: `{"limit":${nested(500_000)}}`,
    want: { status: 422, type: INVALID, pointer: '/limit' },
  },
  // Prototype pollution: ordinary unknown fields, refused before any handler runs.
  { given: '__proto__ key', body: '{"__proto__":{"polluted":"yes"}}', want: { status: 422, type: INVALID, pointer: '/__proto__' } },
  {
    given: '__proto__ beside valid fields',
    body: '{"sort":"asc","__proto__":{"polluted":"yes","limit":1}}',
    want: { status: 422, type: INVALID, pointer: '/__proto__' },
  },
  {
    given: 'constructor.prototype key',
    body: '{"constructor":{"prototype":{"polluted":"yes"}}}',
    want: { status: 422, type: INVALID, pointer: '/constructor' },
  },
  {
    given: '__proto__ in the query string',
    method: 'GET',
    path: '/shared?__proto__[polluted]=yes&constructor[prototype][polluted]=yes',
    want: { status: 422, type: INVALID },
  },
  // Duplicate keys: the last one wins (the contract's decision): each value of the spec's Sort after one it has not, and before it.
  ...SORT.values.map(
    (sort): Row => ({ given: `duplicate sort, last is ${sort}`, body: `{"sort":"not-a-sort","sort":"${sort}"}`, want: { status: 200 }, check: inOrder(sort) }),
  ),
  {
    given: 'duplicate sort, the invalid one last',
    body: `{"sort":"${SORT.default}","sort":"not-a-sort"}`,
    want: { status: 422, type: INVALID, pointer: '/sort' },
  },
  {
    given: 'duplicate limit, the valid one last',
    body: '{"limit":1000,"limit":2}',
    want: { status: 200 },
    check: (page) => expect(page.items).toHaveLength(2),
  },
  { given: 'duplicate limit, the invalid one last', body: '{"limit":2,"limit":1000}', want: { status: 422, type: INVALID, pointer: '/limit' } },
  // Encoding.
  { given: 'an invalid UTF-8 byte (0xFF) in a string', body: new Uint8Array([...bytes('{"sort":"'), 0xff, ...bytes('"}')]), want: { status: 400, type: BAD } },
  { given: 'an overlong UTF-8 encoding of "/"', body: new Uint8Array([...bytes('{"sort":"'), 0xc0, 0xaf, ...bytes('"}')]), want: { status: 400, type: BAD } },
  {
    given: 'a UTF-8-encoded lone surrogate',
    body: new Uint8Array([...bytes('{"sort":"'), 0xed, 0xa0, 0x80, ...bytes('"}')]),
    want: { status: 400, type: BAD },
  },
  { given: 'a truncated UTF-8 sequence at the end', body: new Uint8Array([...bytes('{}'), 0xe2, 0x82]), want: { status: 400, type: BAD } },
  { given: 'UTF-16LE JSON', body: new Uint8Array(Buffer.from('{"sort":"asc"}', 'utf16le')), want: { status: 400, type: BAD } },
  {
    given: 'a UTF-8 byte order mark before the JSON (ignored, as RFC 8259 allows)',
    body: new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"limit":2}')]),
    want: { status: 200 },
    check: (page) => expect(page.items).toHaveLength(2),
  },
  { given: 'an escaped NUL in a value', body: '{"sort":"asc\\u0000"}', want: { status: 422, type: INVALID, pointer: '/sort' } },
  // Schema.
  { given: 'an unknown field', body: '{"srot":"asc"}', want: { status: 422, type: INVALID, pointer: '/srot' } },
  { given: 'sort of the wrong type', body: '{"sort":1}', want: { status: 422, type: INVALID, pointer: '/sort' } },
  { given: 'limit as a string (bodies are not coerced)', body: '{"limit":"10"}', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit as a fraction', body: '{"limit":10.5}', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit null', body: '{"limit":null}', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit 1e999 (Infinity)', body: '{"limit":1e999}', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit 0', body: '{"limit":0}', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'cursor of the wrong type', body: '{"cursor":["a"]}', want: { status: 422, type: INVALID, pointer: '/cursor' } },
  { given: 'a cursor that was never issued', body: '{"cursor":"abc.def"}', want: { status: 422, type: INVALID, pointer: '/cursor' }, byHandler: true },
  { given: 'a query string on a POST', path: '/?sort=asc', want: { status: 422, type: INVALID, pointer: '/sort' } },
  { given: 'limit not a number in the query', method: 'GET', path: '/shared?limit=ten', want: { status: 422, type: INVALID, pointer: '/limit' } },
  {
    given: 'a repeated query parameter',
    method: 'GET',
    path: `/shared?sort=${SORT.default}&sort=${SORT.default}`,
    want: { status: 422, type: INVALID, pointer: '/sort' },
  },
  {
    given: 'limit=Infinity in the query (it once reached SQLite as a 500)',
    method: 'GET',
    path: '/shared?limit=Infinity',
    want: { status: 422, type: INVALID, pointer: '/limit' },
  },
  { given: 'limit=-Infinity in the query', method: 'GET', path: '/shared?limit=-Infinity', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit=NaN in the query', method: 'GET', path: '/shared?limit=NaN', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit=1e400 in the query (not finite)', method: 'GET', path: '/shared?limit=1e400', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit in hex in the query', method: 'GET', path: '/shared?limit=0x10', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit in binary in the query', method: 'GET', path: '/shared?limit=0b11', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit in octal in the query', method: 'GET', path: '/shared?limit=0o7', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit with a plus sign in the query', method: 'GET', path: '/shared?limit=%2B5', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit with a leading zero in the query', method: 'GET', path: '/shared?limit=05', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit with blanks in the query', method: 'GET', path: '/shared?limit=%205', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit with an underscore in the query', method: 'GET', path: '/shared?limit=1_0', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'an empty limit in the query', method: 'GET', path: '/shared?limit=', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit=true in the query', method: 'GET', path: '/shared?limit=true', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: 'limit=10.5 in the query', method: 'GET', path: '/shared?limit=10.5', want: { status: 422, type: INVALID, pointer: '/limit' } },
  { given: "limit=1e1 in the query (JSON's exponent form)", method: 'GET', path: '/shared?limit=1e1', want: { status: 200 } },
  { given: 'limit=10.0 in the query', method: 'GET', path: '/shared?limit=10.0', want: { status: 200 } },
  // Very long strings.
  { given: 'an 8,000-character sort', body: `{"sort":"${'a'.repeat(8000)}"}`, want: { status: 422, type: INVALID, pointer: '/sort' } },
  { given: 'a 513-character cursor', body: `{"cursor":"${'a'.repeat(513)}"}`, want: { status: 422, type: INVALID, pointer: '/cursor' } },
  { given: 'an 8,000-character unknown field name (the pointer is clipped)', body: `{"${'f'.repeat(8000)}":1}`, want: { status: 422, type: INVALID } },
  {
    given: 'a 4,000-character cursor in the query',
    method: 'GET',
    path: `/shared?cursor=${'a'.repeat(4000)}`,
    want: { status: 422, type: INVALID, pointer: '/cursor' },
  },
  { given: 'a 100,000-character path', method: 'GET', path: `/${'p'.repeat(100_000)}`, want: { status: 404, type: 'urn:problem-type:not-found' } },
  // Authorization.
  { given: 'lower-case bearer (accepted)', authorization: 'bearer {key}', want: { status: 200 } },
  { given: 'extra spaces and a tab around the token (accepted)', authorization: 'Bearer  \t {key}   ', want: { status: 200 } },
  { given: 'no Authorization header', key: 'none', want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': 'Bearer realm="api"' } } },
  {
    given: 'an empty Authorization header',
    authorization: '',
    want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': 'Bearer realm="api"' } },
  },
  { given: 'an empty token', authorization: 'Bearer ', want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': invalidToken } } },
  {
    given: 'another scheme (Basic)',
    authorization: 'Basic {key}',
    want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': 'Bearer realm="api"' } },
  },
  { given: 'the key with no scheme', authorization: '{key}', want: { status: 401, type: UNAUTHORIZED } },
  {
    given: 'two bearer credentials in one header',
    authorization: 'Bearer {key}, Bearer {key}',
    want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': invalidToken } },
  },
  {
    given: 'two tokens after one scheme',
    authorization: 'Bearer {key} {key}',
    want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': invalidToken } },
  },
  { given: 'a revoked key', key: 'revoked', want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': invalidToken } } },
  { given: 'a well-formed key nobody made', key: 'unknown', want: { status: 401, type: UNAUTHORIZED, headers: { 'www-authenticate': invalidToken } } },
  {
    given: 'the key in the query string only (ignored)',
    key: 'none',
    method: 'GET',
    path: '/shared?access_token={key}',
    want: { status: 401, type: UNAUTHORIZED },
  },
  { given: 'the key in the query string of a POST (ignored)', key: 'none', path: '/?api_key={key}', want: { status: 401, type: UNAUTHORIZED } },
  {
    given: 'a valid header and a key in the query string: an unknown parameter',
    method: 'GET',
    path: '/shared?access_token={key}',
    want: { status: 422, type: INVALID, pointer: '/access_token' },
  },
  {
    given: 'no key and a broken body: credentials are checked first',
    key: 'none',
    contentType: 'text/plain',
    body: '{"sort":',
    want: { status: 401, type: UNAUTHORIZED },
  },
  // Routing.
  { given: 'an unknown path', path: '/items', want: { status: 404, type: 'urn:problem-type:not-found' } },
  { given: 'a trailing slash on /shared', method: 'GET', path: '/shared/', want: { status: 404, type: 'urn:problem-type:not-found' } },
  { given: 'a dot-dot path', method: 'GET', path: '/shared/../../etc/passwd', want: { status: 404, type: 'urn:problem-type:not-found' } },
  { given: 'GET on POST-only /', method: 'GET', want: { status: 405, type: 'urn:problem-type:method-not-allowed', headers: { allow: allowFor('/') } } },
  {
    given: 'PUT /shared',
    method: 'PUT',
    path: '/shared',
    body: '{}',
    want: { status: 405, type: 'urn:problem-type:method-not-allowed', headers: { allow: allowFor('/shared') } },
  },
  { given: 'DELETE /', method: 'DELETE', want: { status: 405, type: 'urn:problem-type:method-not-allowed', headers: { allow: allowFor('/') } } },
  {
    given: 'PATCH / without a key: the method is checked before credentials',
    method: 'PATCH',
    key: 'none',
    want: { status: 405, type: 'urn:problem-type:method-not-allowed', headers: { allow: allowFor('/') } },
  },
  {
    given: 'OPTIONS / with CORS off',
    method: 'OPTIONS',
    want: { status: 405, type: 'urn:problem-type:method-not-allowed', headers: { allow: allowFor('/') } },
  },
];

let handlerCalls: unknown[][] = [];
beforeAll(() => {
  // The handlers are looked up when the app is built, so the spies must be in place first.
  for (const name of Object.keys(operationHandlers) as Array<keyof typeof operationHandlers>) {
    const original = operationHandlers[name];
    vi.spyOn(operationHandlers, name).mockImplementation(((...args: Parameters<typeof original>) => {
      handlerCalls.push(args);
      return (original as (...inner: typeof args) => ReturnType<typeof original>)(...args);
    }) as typeof original);
  }
});
afterEach(() => {
  handlerCalls = [];
});
// The next test file in this worker shares the module (vitest.config.ts: isolate off).
afterAll(() => {
  vi.restoreAllMocks();
});

async function world(limits?: Partial<Limits>) {
  const t = await createTestApp({ ...(limits && { limits }) });
  const ann = await t.addUser('ann');
  const revoked = await t.addUser('ann');
  await t.store.revokeKey(revoked.keyId, new Date(START).toISOString());
  await t.addItems(ann.user.id, 5);
  return { t, keys: { valid: ann.key, revoked: revoked.key, unknown: generateApiKey().key } };
}

describe('the bad-input matrix', () => {
  it.each(rows)('$given: $want.status', async (row) => {
    const { t, keys } = await world(row.limits);
    const method = row.method ?? 'POST';
    const fill = (text: string) => text.replaceAll('{key}', keys.valid);
    const headers: Record<string, string> = {};
    if (row.authorization !== undefined) headers['Authorization'] = fill(row.authorization);
    else if ((row.key ?? 'valid') !== 'none') headers['Authorization'] = `Bearer ${keys[(row.key ?? 'valid') as Exclude<Key, 'none'>]}`;
    if (method !== 'GET' && row.contentType !== null) headers['Content-Type'] = row.contentType ?? 'application/json';
    let rawBody: BodyInit | undefined;
    const body = row.body === undefined ? (method === 'POST' ? '{}' : null) : row.body;
    if (body !== null) {
      // Bytes, not a string: a string body would get `text/plain` from the Request constructor.
      const data = typeof body === 'string' ? new TextEncoder().encode(body) : body;
      rawBody = typeof data === 'function' ? data() : new Uint8Array(data);
      if (row.sized && data instanceof Uint8Array) headers['Content-Length'] = String(data.byteLength);
    }
    const response = await t.send(method, fill(row.path ?? '/'), { headers, ...(rawBody !== undefined && { rawBody }) });

    expect(response.status).toBe(row.want.status);
    if (row.want.type) {
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.json).toMatchObject({ type: row.want.type, status: row.want.status });
      if (!row.byHandler) expect(handlerCalls, 'a refused request never reaches a handler').toEqual([]);
    }
    if (row.want.pointer) expect(response.json.errors.map((error: { pointer: string }) => error.pointer)).toContain(row.want.pointer);
    for (const [name, value] of Object.entries(row.want.headers ?? {})) {
      if (typeof value === 'string') expect(response.headers.get(name)).toBe(value);
      else expect(response.headers.get(name)).toMatch(value);
    }
    if (row.check) row.check(response.json);
    // Whatever came in, nothing reached Object.prototype, and the text never echoes the key.
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(response.text).not.toContain(keys.valid);
    // And the app still serves.
    expect((await t.send('POST', '/', { key: keys.valid, body: {} })).status).toBe(200);
  });

  it("hands a handler only plain objects with the contract's fields and their defaults", async () => {
    const { t, keys } = await world();
    await t.send('POST', '/', {
      key: keys.valid,
      rawBody: new TextEncoder().encode('{"sort":"desc","sort":"asc"}'),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(handlerCalls).toHaveLength(1);
    const [input] = handlerCalls[0] as [{ body: Record<string, unknown> }];
    expect(Object.getPrototypeOf(input.body)).toBe(Object.prototype);
    expect(input).toEqual({ path: {}, query: {}, headers: {}, body: { sort: 'asc', limit: 20 } });
  });

  it('answers HEAD /shared like GET, without a body', async () => {
    const { t, keys } = await world();
    const response = await t.app.request('/shared', { method: 'HEAD', headers: { Authorization: `Bearer ${keys.valid}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
  });
});

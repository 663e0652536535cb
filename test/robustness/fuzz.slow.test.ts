/**
 * Property-based fuzzing from the spec: requests are generated from the spec's
 * own schemas (the request body schema, the query parameters, the request media
 * types, the security scheme, the paths and methods) and sent in-process. Every
 * answer must honour the contract (no 5xx, a documented status, a body and
 * headers valid against the spec), and its status must be the one the
 * contract's order of checks gives. A failure shrinks to a minimal request,
 * printed as an HTTP message with the seed and path to replay it.
 *
 * FUZZ_RUNS=100000 npx vitest run test/robustness/fuzz.slow.test.ts   (default 10,000)
 * FUZZ_SEED=<seed> FUZZ_PATH=<path> replays a reported failure.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type OperationContract, readOperations } from '../../src/contract/operations.js';
import { compileSpecSchema, createSpecAjv } from '../../src/contract/schemas.js';
import { isObject, type Json } from '../../src/contract/spec.js';
import { PROBLEM_TYPES } from '../../src/http/problems.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { createTestApp, START, type TestResponse } from '../helpers/app.js';
import { matchRoute, requestContract, spec } from '../helpers/contract.js';
import { invalidValue, resolveSchema, validValue } from './helpers/schema-arbitrary.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 10_000);
const MAX_BODY = requestContract.limits.maxBodyBytes;
const operations = readOperations(spec);
const methodsByPath = requestContract.methodsByPath;
// HEAD is left to the matrix: the shared response checker reads a body, and HEAD has none.
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** The operations that answer a page of items: those take sort, limit and cursor and can be walked. */
const listOperations = operations.filter((operation) => {
  const schema = operation.responses['200']?.content['application/json']?.schema;
  return isObject(schema) && schema['$ref'] === '#/components/schemas/ItemPage';
});

// The oracle's own validators, compiled from the spec independently of the server's.
const bodyValidators = new Map(
  operations.flatMap((operation) => {
    const json = operation.requestBody?.content['application/json'];
    return json ? [[operation.operationId, compileSpecSchema(createSpecAjv(spec), json.schema)] as const] : [];
  }),
);
// Query values are text: the oracle reads a number only in JSON's notation (RFC 8259 §6) and finite, as the
// contract says, written here independently of the server's reading; everything else stays text for the schema.
const queryAjv = createSpecAjv(spec);
const queryValidators = new Map(
  operations.map((operation) => {
    const query = operation.parameters.filter((parameter) => parameter.in === 'query');
    const schema: Json = {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(query.map((parameter) => [parameter.name, parameter.schema])),
    };
    const numeric = new Set(
      query.filter((parameter) => ['integer', 'number'].includes(String(resolveSchema(spec, parameter.schema)['type']))).map((parameter) => parameter.name),
    );
    const validate = compileSpecSchema(queryAjv, schema);
    const read = (values: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(values).map(([name, value]) => [name, numeric.has(name) && typeof value === 'string' ? jsonNumber(value) : value]));
    return [operation.operationId, (values: Record<string, unknown>) => validate(read(values))] as const;
  }),
);

// Path parameters are text too, read as the query's are.
const pathValidators = new Map(
  operations.map((operation) => {
    const path = operation.parameters.filter((parameter) => parameter.in === 'path');
    const validate = compileSpecSchema(createSpecAjv(spec), {
      type: 'object',
      properties: Object.fromEntries(path.map((parameter) => [parameter.name, parameter.schema])),
    });
    const numeric = new Set(
      path.filter((parameter) => ['integer', 'number'].includes(String(resolveSchema(spec, parameter.schema)['type']))).map((parameter) => parameter.name),
    );
    return [
      operation.operationId,
      (values: Record<string, string>) =>
        validate(Object.fromEntries(Object.entries(values).map(([name, value]) => [name, numeric.has(name) ? jsonNumber(value) : value]))),
    ] as const;
  }),
);

function jsonNumber(text: string): unknown {
  if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) return text;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

/** Numbers as clients really write them in a query string: every notation, the non-finite ones, and near misses. */
const numberTexts = fc.oneof(
  fc
    .integer({ min: -5, max: 150 })
    .chain((n) =>
      fc.constantFrom(
        String(n),
        `${n}.0`,
        `${n}e0`,
        `${n / 10}e1`,
        `${n}E+0`,
        `0${n}`,
        `+${n}`,
        ` ${n}`,
        `${n} `,
        `0x${n.toString(16)}`,
        `0b${Math.abs(n).toString(2)}`,
        `0o${Math.abs(n).toString(8)}`,
        `${n}_0`,
        `${n}.`,
        `.${n}`,
      ),
    ),
  fc.constantFrom('Infinity', '-Infinity', 'NaN', '1e400', '-1e400', '1e-400', '-0', '0.0', '', 'null', 'true', '1,5', '٣', '１０', `1${'0'.repeat(400)}`),
);

// ---------------------------------------------------------------- the world

// Generous budgets: the fuzzer checks the order of checks, not the quotas (rate-limit.test.ts does).
const t = await createTestApp({
  limits: {
    rateLimit: { requests: 1_000_000_000, windowSeconds: 60 },
    failedAuthentication: { perAddress: 1_000_000_000, windowSeconds: 60 },
  },
});
const fuzzer = await t.addUser('fuzzer');
const other = await t.addUser('other');
const revoked = await t.addUser('fuzzer');
await t.store.revokeKey(revoked.keyId, new Date(START).toISOString());
const ownItems = await t.addItems(fuzzer.user.id, 23);
const sharedItems = await t.addItems(other.user.id, 17, { sameTime: true });
for (const item of sharedItems.slice(0, 12)) await t.store.shareItem(item.id, fuzzer.user.id, new Date(START).toISOString());
/** Values the store made (ids of items owned, shared and not shared), so a path parameter sometimes names something that exists. */
const madeValues = [...ownItems, ...sharedItems].map((item) => item.id);

/** Genuine cursors of the fuzzer's lists, by spec path and sort, collected from real pages. */
const cursors: Array<{ path: string; sort: string; cursor: string }> = [];

// ---------------------------------------------------------------- generators

const bearer = (() => {
  const schemes = isObject(spec.components['securitySchemes']) ? spec.components['securitySchemes'] : {};
  const scheme = Object.values(schemes).find((candidate) => isObject(candidate) && candidate['scheme'] === 'bearer');
  if (!isObject(scheme)) throw new Error('the spec declares no bearer scheme');
  return String(scheme['scheme']);
})();
const Bearer = bearer[0]!.toUpperCase() + bearer.slice(1);

type Auth = { kind: 'valid' | 'other-user' | 'refused'; header: string | undefined };
const auth: fc.Arbitrary<Auth> = fc.oneof(
  { withCrossShrink: true },
  {
    weight: 6,
    arbitrary: fc.constantFrom<Auth>(
      { kind: 'valid', header: `${Bearer} ${fuzzer.key}` },
      { kind: 'valid', header: `${bearer} ${fuzzer.key}` },
      { kind: 'valid', header: `${bearer.toUpperCase()}   ${fuzzer.key}  ` },
    ),
  },
  { weight: 1, arbitrary: fc.constant<Auth>({ kind: 'other-user', header: `${Bearer} ${other.key}` }) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.constantFrom<string | undefined>(
          undefined,
          '',
          Bearer,
          `${Bearer} `,
          `${Bearer} ${revoked.key}`,
          `${Bearer} ${generateApiKey().key}`,
          `${Bearer} ${fuzzer.key.slice(0, -1)}${fuzzer.key.endsWith('A') ? 'B' : 'A'}`,
          `${Bearer} ${fuzzer.key}x`,
          `${Bearer} ${fuzzer.key} ${fuzzer.key}`,
          `${Bearer} ${fuzzer.key}, ${Bearer} ${fuzzer.key}`,
          `${Bearer}${fuzzer.key}`,
          fuzzer.key,
          `Basic ${Buffer.from(`fuzzer:${fuzzer.key}`).toString('base64')}`,
          `Token ${fuzzer.key}`,
        ),
        fc.string({ maxLength: 60 }).map((text) => `${Bearer} ${text}`),
        fc.string({ maxLength: 60 }),
      )
      .map((header): Auth => ({ kind: 'refused', header })),
  },
);

/** Content types: the spec's request media types, with the parameters the contract allows, and ones it refuses. */
type ContentType = { ok: boolean | undefined; value: string | undefined };
const mediaTypes = [...new Set(operations.flatMap((operation) => Object.keys(operation.requestBody?.content ?? {})))];
const contentType: fc.Arbitrary<ContentType> = fc.oneof(
  { withCrossShrink: true },
  { weight: 8, arbitrary: fc.constantFrom(...mediaTypes).map((type): ContentType => ({ ok: true, value: type })) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...mediaTypes)
      .chain((type) =>
        fc.constantFrom<ContentType>(
          { ok: true, value: `${type}; charset=utf-8` },
          { ok: true, value: `${type.toUpperCase()}; Charset="UTF-8"` },
          { ok: false, value: `${type}; charset=iso-8859-1` },
          { ok: false, value: `${type}x` },
          { ok: false, value: `${type.replace('json', 'problem+json')}` },
          { ok: undefined, value: `${type};` },
        ),
      ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<ContentType>(
      { ok: false, value: undefined },
      { ok: false, value: 'text/plain' },
      { ok: false, value: 'application/x-www-form-urlencoded' },
      { ok: false, value: 'multipart/form-data; boundary=x' },
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((value): ContentType => ({ ok: undefined, value })) },
);

type Body = { kind: string; bytes: Uint8Array; transfer: 'bytes' | 'sized' | 'stream' };
const encoder = new TextEncoder();
const text = (value: string) => encoder.encode(value);

function bodies(operation: OperationContract): fc.Arbitrary<Omit<Body, 'transfer'>> {
  const schema = operation.requestBody?.content['application/json']?.schema;
  const valid = validValue(spec, schema);
  const invalid = invalidValue(spec, schema);
  const fieldNames = Object.keys((resolveSchema(spec, schema)['properties'] as object | undefined) ?? {});
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 8, arbitrary: valid.map((value) => ({ kind: 'valid', bytes: text(JSON.stringify(value)) })) },
    { weight: 2, arbitrary: valid.map((value) => ({ kind: 'valid, pretty', bytes: text(`\n ${JSON.stringify(value, null, '\t')} \r\n`) })) },
    { weight: 8, arbitrary: invalid.map((value) => ({ kind: 'schema-invalid', bytes: text(JSON.stringify(value)) })) },
    {
      weight: 2,
      // Duplicate keys: the contract says the last one wins.
      arbitrary: fc.tuple(fc.constantFrom(...fieldNames), fc.jsonValue({ maxDepth: 1 }), valid).map(([name, first, value]) => {
        const json = JSON.stringify(value);
        const inner = json.slice(1, -1);
        return { kind: 'duplicate key', bytes: text(`{${JSON.stringify(name)}:${JSON.stringify(first)}${inner ? `,${inner}` : ''}}`) };
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .jsonValue({ maxDepth: 2 })
        .filter((value) => !isObject(value))
        .map((value) => ({ kind: 'not an object', bytes: text(JSON.stringify(value)) })),
    },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.tuple(valid, fc.nat()).map(([value, cut]) => {
            const json = JSON.stringify(value);
            return json.slice(0, cut % json.length);
          }),
          fc.string({ maxLength: 40 }),
          fc.constantFrom(
            '{',
            '}',
            '{"sort":}',
            "{'sort':'asc'}",
            '{"sort":"asc",}',
            '{sort:"asc"}',
            'NaN',
            '{"limit":01}',
            '{"limit":1e999}',
            '{"sort":"asc"}{}',
            '{"sort":"\\x"}',
          ),
        )
        .map((value) => ({ kind: 'malformed or empty', bytes: text(value) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat(), fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80])).map(([value, at, bad]) => {
        const json = text(JSON.stringify(value));
        const cut = at % json.length;
        return { kind: 'invalid UTF-8', bytes: new Uint8Array([...json.subarray(0, cut), ...bad, ...json.subarray(cut)]) };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: MAX_BODY + 1, max: MAX_BODY * 3 })
        .map((size) => ({ kind: 'over the size limit', bytes: text(`{"sort":"${'a'.repeat(size - 11)}"}`) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 100, max: Math.floor((MAX_BODY - 20) / 2) }), fc.boolean()).map(([depth, topLevel]) => {
        const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        return { kind: `nested ${depth} deep`, bytes: text(topLevel ? nested : `{${JSON.stringify(fieldNames[0] ?? 'x')}:${nested}}`) };
      }),
    },
  );
}

/** Query strings from the operation's parameters: valid and invalid values, unknown and repeated names. */
function queries(operation: OperationContract): fc.Arbitrary<Array<[string, string]>> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  const pair = fc.oneof(
    ...parameters.map((parameter) =>
      fc.oneof(
        { weight: 4, arbitrary: validValue(spec, parameter.schema).map((value): [string, string] => [parameter.name, asText(value)]) },
        ...(['integer', 'number'].includes(String(resolveSchema(spec, parameter.schema)['type']))
          ? [{ weight: 3, arbitrary: numberTexts.map((value): [string, string] => [parameter.name, value]) }]
          : []),
        { weight: 1, arbitrary: invalidValue(spec, parameter.schema).map((value): [string, string] => [parameter.name, asText(value)]) },
        { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((value): [string, string] => [parameter.name, value]) },
      ),
    ),
    fc.tuple(
      fc.oneof(fc.constantFrom('__proto__', 'constructor', 'srot', 'Limit', 'token', 'access_token', 'api_key'), fc.string({ minLength: 1, maxLength: 10 })),
      fc.string({ maxLength: 12 }),
    ),
  );
  const known = new Set(parameters.map((parameter) => parameter.name));
  const shapes: Array<fc.WeightedArbitrary<Array<[string, string]>>> = [
    { weight: 3, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: 2, arbitrary: fc.array(pair, { maxLength: 5 }) },
  ];
  // Without repeats, known names only: the valid shape, mostly.
  if (known.size > 0)
    shapes.push({
      weight: 5,
      arbitrary: fc.uniqueArray(pair, { selector: ([name]) => name, maxLength: 4 }).map((pairs) => pairs.filter(([name]) => known.has(name))),
    });
  return fc.oneof(...shapes).map((pairs) => pairs.filter(([name]) => name !== ''));
}

interface FuzzRequest {
  method: string;
  /** Spec path, or a path the spec does not have. */
  path: string;
  query: Array<[string, string]>;
  /** A genuine cursor of the fuzzer's lists, put into the body or query (index into `cursors`). */
  cursor: number | undefined;
  auth: Auth;
  contentType: ContentType;
  body: Body | undefined;
  headers: Record<string, string>;
}

const transfer = fc.constantFrom<Body['transfer']>('bytes', 'sized', 'stream');
const extraHeaders = fc.dictionary(
  fc.constantFrom('X-Request-Id', 'Accept', 'Origin', 'Accept-Encoding', 'X-Forwarded-For', 'Cookie', 'Expect'),
  fc.oneof(
    fc.string({ maxLength: 20 }).map((value) => value.replace(/[\r\n\0]/g, '')),
    fc.stringMatching(/^[\w=-]{1,120}$/),
  ),
  { maxKeys: 2 },
);

/** The operation's path with its parameters filled in: values the store made, valid ones, invalid ones and any text, percent-encoded. */
function concretePaths(operation: OperationContract): fc.Arbitrary<string> {
  const parameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  if (parameters.length === 0) return fc.constant(operation.path);
  const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  const values = parameters.map((parameter) =>
    fc
      .oneof(
        { weight: 4, arbitrary: fc.constantFrom(...madeValues) },
        { weight: 3, arbitrary: validValue(spec, parameter.schema) },
        { weight: 2, arbitrary: invalidValue(spec, parameter.schema) },
        { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 24 }) },
      )
      .map((value) => [parameter.name, encodeURIComponent(asText(value))] as const),
  );
  // A value of '.' or '..' is a dot segment, which every URL parser removes (RFC 3986 5.2.4) before the server sees it:
  // the request is the path as sent, so the oracle judges that path, not the template's.
  return fc
    .tuple(...values)
    .map((pairs) => pairs.reduce((path, [name, value]) => path.replace(`{${name}}`, value || '%20'), operation.path))
    .map((path) => new URL(`http://localhost${path}`).pathname);
}

const specRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  ...operations.map((operation) =>
    fc.record({
      method: fc.constant(operation.method),
      path: concretePaths(operation),
      query: operation.requestBody
        ? fc.oneof({ weight: 9, arbitrary: fc.constant<Array<[string, string]>>([]) }, { weight: 1, arbitrary: queries(operation) })
        : queries(operation),
      cursor: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat() }),
      auth,
      contentType: operation.requestBody ? contentType : fc.oneof(fc.constant<ContentType>({ ok: undefined, value: undefined }), contentType),
      body: operation.requestBody ? fc.tuple(bodies(operation), transfer).map(([body, how]) => ({ ...body, transfer: how })) : fc.constant(undefined),
      headers: extraHeaders,
    }),
  ),
);

const offSpecRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom(...ALL_METHODS),
    path: fc
      .oneof(
        fc.constantFrom(...methodsByPath.keys()),
        fc.constantFrom('/shared/', '//', '/SHARED', '/shared/x', '/%2e%2e/', '/index.html', '/.env', '/shared%00', '/%73hared'),
        fc.webPath(),
      )
      .map((path) => new URL(`http://localhost${path.startsWith('/') ? path : `/${path}`}`).pathname),
    query: fc.constant<Array<[string, string]>>([]),
    cursor: fc.constant(undefined),
    auth,
    contentType,
    body: fc.constant(undefined),
    headers: extraHeaders,
  })
  .filter(
    (request) => !operations.some((operation) => operation.path === matchRoute(routePath(request.path))?.template && operation.method === request.method),
  );

/** The path the router matches: percent-decoding as the server's router does it. */
function routePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

const fuzzRequest = fc.oneof({ withCrossShrink: true }, { weight: 9, arbitrary: specRequest }, { weight: 1, arbitrary: offSpecRequest });

// ---------------------------------------------------------------- oracle

/** The status the contract's order of checks gives: route, credentials, media type, size, JSON, schema, cursor. */
function expectedStatus(
  request: FuzzRequest,
  sent: { bodyObject: Record<string, unknown> | undefined; queryObject: Record<string, unknown> },
): number | undefined {
  const route = matchRoute(routePath(request.path));
  if (!route) return 404;
  const operation = operations.find((candidate) => candidate.path === route.template && candidate.method === request.method);
  if (!operation) return 405;
  if (request.auth.kind === 'refused') return 401;
  if (operation.requestBody) {
    if (request.contentType.ok === undefined) return undefined;
    if (!request.contentType.ok) return 415;
    const bytes = request.body?.bytes ?? new Uint8Array();
    if (bytes.byteLength > MAX_BODY) return 413;
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return 400;
    }
    if (!isObject(parsed)) return 400;
  }
  const bodyValid = sent.bodyObject === undefined || bodyValidators.get(operation.operationId)!(sent.bodyObject);
  const queryValid = queryValidators.get(operation.operationId)!(sent.queryObject);
  const pathValid = pathValidators.get(operation.operationId)!(route.parameters);
  if (!bodyValid || !queryValid || !pathValid) return 422;
  // Whether a valid path parameter names something the caller may see is the handler's to say (200 or a documented 404).
  if (Object.keys(route.parameters).length > 0) return undefined;
  const options = (sent.bodyObject ?? sent.queryObject) as { cursor?: unknown; sort?: unknown };
  if (options.cursor === undefined) return 200;
  const genuine = cursors.some((entry) => entry.cursor === options.cursor && entry.path === operation.path && entry.sort === (options.sort ?? 'asc'));
  return genuine && request.auth.kind === 'valid' ? 200 : 422;
}

/** The request made concrete: a genuine cursor spliced in, the query string encoded. */
function materialise(request: FuzzRequest) {
  const genuine = request.cursor === undefined || cursors.length === 0 ? undefined : cursors[request.cursor % cursors.length]!.cursor;
  let bytes = request.body?.bytes;
  let bodyObject: Record<string, unknown> | undefined;
  let query = request.query;
  const template = matchRoute(request.path)?.template;
  const hasBody = operations.some((operation) => operation.path === template && operation.method === request.method && operation.requestBody);
  if (hasBody && bytes) {
    try {
      const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
      if (isObject(parsed)) {
        bodyObject = parsed;
        if (genuine && request.body?.kind === 'valid') {
          bodyObject = { ...parsed, cursor: genuine };
          bytes = text(JSON.stringify(bodyObject));
        }
      }
    } catch {
      // not JSON: sent as it is
    }
  } else if (genuine && !hasBody) {
    query = [...query.filter(([name]) => name !== 'cursor'), ['cursor', genuine]];
  }
  const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  const queryObject: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of query) {
    const previous = queryObject[name];
    queryObject[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return { bytes, bodyObject: hasBody ? bodyObject : undefined, queryObject: { ...queryObject }, target: `${request.path}${search ? `?${search}` : ''}` };
}

function describeRequest(request: FuzzRequest): string {
  const { bytes, target } = materialise(request);
  const lines = [`${request.method} ${target} HTTP/1.1`];
  if (request.auth.header !== undefined)
    lines.push(
      `Authorization: ${request.auth.header.replace(fuzzer.key, '<fuzzer key>').replace(other.key, '<other key>').replace(revoked.key, '<revoked key>')}`,
    );
  if (request.contentType.value !== undefined) lines.push(`Content-Type: ${request.contentType.value}`);
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (bytes) {
    lines.push(`(body sent as ${request.body?.transfer}, ${bytes.byteLength} bytes, ${request.body?.kind})`, '');
    const decoded = Buffer.from(bytes).toString('latin1');
    lines.push(JSON.stringify(decoded.length > 300 ? `${decoded.slice(0, 300)}…` : decoded));
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- the property

const statusCounts = new Map<number, number>();
let sentCount = 0;
let lastResponse: TestResponse | undefined;
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

async function sendFuzzRequest(request: FuzzRequest): Promise<void> {
  const sent = materialise(request);
  const headers: Record<string, string> = { ...request.headers };
  if (request.auth.header !== undefined) headers['Authorization'] = request.auth.header;
  if (request.contentType.value !== undefined) headers['Content-Type'] = request.contentType.value;
  let rawBody: BodyInit | undefined;
  if (sent.bytes && request.method !== 'GET') {
    const bytes = new Uint8Array(sent.bytes);
    if (request.body?.transfer === 'sized') headers['Content-Length'] = String(bytes.byteLength);
    rawBody =
      request.body?.transfer === 'stream'
        ? new ReadableStream<Uint8Array<ArrayBuffer>>({
            start(controller) {
              for (let at = 0; at < bytes.byteLength; at += 1024) controller.enqueue(bytes.slice(at, at + 1024));
              controller.close();
            },
          })
        : bytes;
  }
  lastResponse = undefined;
  // `send` checks the answer against the spec: no 5xx, documented status, valid body and headers.
  const response = await t.send(request.method, sent.target, { headers, ...(rawBody !== undefined && { rawBody }) });
  lastResponse = response;
  sentCount++;
  statusCounts.set(response.status, (statusCounts.get(response.status) ?? 0) + 1);

  const expected = expectedStatus(request, sent);
  if (expected !== undefined) expect(response.status, "status by the contract's order of checks").toBe(expected);
  if (response.status >= 400) {
    const type = Object.entries(PROBLEM_TYPES).find(([, problem]) => problem.status === response.status)?.[0];
    expect(response.json).toMatchObject({ type, status: response.status, requestId: response.headers.get('x-request-id') });
  }
  if (response.status === 405) expect(response.headers.get('allow')).toBeTruthy();
  expect(response.headers.get('x-powered-by')).toBeNull();
  expect(response.headers.get('access-control-allow-origin')).toBeNull();
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
}

describe('fuzzing from the spec', () => {
  afterAll(() => {
    const counts = [...statusCounts]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    console.info(`fuzz: ${sentCount} requests in-process; statuses ${counts}`);
  });

  it('collects genuine cursors to page with', async () => {
    for (const { method, path } of listOperations) {
      for (const sort of ['asc', 'desc']) {
        let cursor: string | null = null;
        for (let page = 0; page < 3; page++) {
          const response: TestResponse =
            method === 'GET'
              ? await t.send(method, `${path}?limit=4&sort=${sort}${cursor ? `&cursor=${cursor}` : ''}`, { key: fuzzer.key })
              : await t.send(method, path, { key: fuzzer.key, body: { limit: 4, sort, ...(cursor && { cursor }) } });
          cursor = (response.json as { nextCursor: string | null }).nextCursor;
          if (!cursor) break;
          cursors.push({ path, sort, cursor });
        }
      }
    }
    expect(cursors.length).toBeGreaterThan(10);
  });

  it(`answers ${RUNS} generated requests within the contract`, { timeout: Math.max(120_000, RUNS * 20) }, async () => {
    const started = performance.now();
    const seed = process.env['FUZZ_SEED'] === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(process.env['FUZZ_SEED']);
    const path = process.env['FUZZ_PATH'];
    const details = await fc.check(fc.asyncProperty(fuzzRequest, sendFuzzRequest), { numRuns: RUNS, seed, ...(path && { path }), endOnFailure: false });
    if (details.failed) {
      const [request] = details.counterexample ?? [];
      // Run the minimal case once more so the response printed is its own.
      const error = await sendFuzzRequest(request!).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      throw new Error(
        [
          `fuzzing found a request the server answers against the contract (after ${details.numRuns} runs, ${details.numShrinks} shrinks).`,
          `Replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} npx vitest run test/robustness/fuzz.slow.test.ts`,
          '',
          'Minimal request:',
          describeRequest(request!),
          '',
          `Response: ${lastResponse ? `${lastResponse.status} ${lastResponse.text.slice(0, 500)}` : '(none)'}`,
          `Failure: ${error instanceof Error ? error.message : String(error ?? details.errorInstance)}`,
        ].join('\n'),
      );
    }
    const seconds = (performance.now() - started) / 1000;
    console.info(`fuzz: ${path ? `case ${path} replayed` : `${RUNS} runs`} in ${seconds.toFixed(1)} s (seed ${seed})`);
    // A replay runs the one case its path names.
    expect(sentCount).toBeGreaterThanOrEqual(path ? 1 : RUNS);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

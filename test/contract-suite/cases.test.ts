import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { loadSpec, type Json } from '../../src/contract/spec.js';
import { deriveCases, listShape, type Family } from '../../src/contract-suite/cases.js';
import { orderBreak } from '../../src/contract-suite/checks.js';
import { buildRequest, toCurl } from '../../src/contract-suite/http.js';
import { excusesFor, KNOWN_DIFFERENCES } from '../../src/contract-suite/known-differences.js';

const spec = loadSpec();
const operations = readOperations(spec);
const cases = deriveCases(spec, operations);
const transport = { baseUrl: 'http://api.test/', token: 'tka_secret', fetch: globalThis.fetch, timeoutMs: 1000 };

describe('deriveCases', () => {
  it('gives every case a unique id', () => {
    const ids = cases.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    {
      operationId: 'listOwnItems',
      want: ['example:sample', 'example:defaults', 'example:newestFirstPage', 'example:nextPage', 'sort:asc', 'sort:desc', 'pagination'],
    },
    {
      operationId: 'listSharedItemsByQuery',
      want: ['example:parameter sort', 'example:parameter limit', 'example:parameter cursor', 'example:all parameter examples', 'sort:asc', 'sort:desc', 'pagination', 'content-type-without-body'],
    },
  ])('derives the positive cases of $operationId from its examples and sort enum', ({ operationId, want }) => {
    const positive = cases.filter((entry) => entry.operation.operationId === operationId && entry.polarity === 'positive');
    expect(positive.map((entry) => entry.id.replace(`${operationId} positive `, '').replace(' ', ':'))).toEqual(want);
    expect(positive.every((entry) => entry.expectedStatus === 200)).toBe(true);
  });

  it.each([
    { family: 'no-authorization', status: 401, authorization: undefined },
    { family: 'other-scheme', status: 401, authorization: expect.stringMatching(/^Basic /) },
    { family: 'empty-bearer', status: 401, authorization: 'Bearer ' },
    { family: 'unknown-key', status: 401, authorization: expect.stringMatching(/^Bearer tka_[0-9A-Za-z]{38}$/) },
    { family: 'malformed-json', status: 400, authorization: 'Bearer tka_secret' },
    { family: 'wrong-content-type', status: 415, authorization: 'Bearer tka_secret' },
  ] as Array<{ family: Family; status: number; authorization: unknown }>)('sends $family to POST / and expects $status', ({ family, status, authorization }) => {
    const entry = cases.find((candidate) => candidate.operation.operationId === 'listOwnItems' && candidate.family === family);
    expect(entry?.expectedStatus).toBe(status);
    expect(buildRequest(transport, entry!, entry!.options).headers['Authorization']).toEqual(authorization);
  });

  it.each([
    { id: 'listOwnItems negative invalid-enum body/sort', want: { method: 'POST', url: 'http://api.test/', body: '{"sort":"up"}' } },
    { id: 'listOwnItems negative wrong-type body/limit', want: { method: 'POST', url: 'http://api.test/', body: '{"limit":"ten"}' } },
    { id: 'listOwnItems negative over-maximum body/limit', want: { method: 'POST', url: 'http://api.test/', body: '{"limit":101}' } },
    { id: 'listOwnItems negative unknown-field body/srot', want: { method: 'POST', url: 'http://api.test/', body: '{"srot":"asc"}' } },
    { id: 'listOwnItems negative malformed-json', want: { method: 'POST', url: 'http://api.test/', body: '{"sort":' } },
    { id: 'listSharedItemsByQuery negative invalid-enum query/sort', want: { method: 'GET', url: 'http://api.test/shared?sort=up' } },
    { id: 'listSharedItemsByQuery negative over-maximum query/limit', want: { method: 'GET', url: 'http://api.test/shared?limit=101' } },
    { id: 'listSharedItemsByQuery negative unknown-field query/srot', want: { method: 'GET', url: 'http://api.test/shared?srot=asc' } },
    { id: 'listSharedItemsByQuery negative too-short query/cursor', want: { method: 'GET', url: 'http://api.test/shared?cursor=' } },
  ])('builds $id from the schema', ({ id, want }) => {
    const entry = cases.find((candidate) => candidate.id === id);
    expect(entry, `no case ${id}`).toBeDefined();
    expect(buildRequest(transport, entry!, entry!.options)).toMatchObject(want);
    if (entry!.family !== 'malformed-json') expect(entry!.expectedStatus).toBe(422);
  });

  it('only derives cases for list operations, which only read', () => {
    const write = { ...operations[0]!, operationId: 'createItem', responses: { '201': { status: '201', description: '', headers: {}, content: {} } } };
    expect(listShape(spec, write)).toBeUndefined();
    expect(deriveCases(spec, [...operations, write]).map((entry) => entry.id)).toEqual(cases.map((entry) => entry.id));
    expect(new Set(cases.map((entry) => `${entry.operation.method} ${entry.operation.path}`))).toEqual(new Set(['POST /', 'GET /shared', 'POST /shared']));
  });

  it('reads the list options of each operation from the spec', () => {
    const shapes = operations.map((operation) => listShape(spec, operation));
    expect(shapes.map((shape) => [shape?.location, Object.keys(shape?.properties ?? {}), shape?.defaultSort, shape?.defaultLimit, shape?.maxLimit])).toEqual([
      ['body', ['sort', 'limit', 'cursor'], 'asc', 20, 100],
      ['query', ['sort', 'limit', 'cursor'], 'asc', 20, 100],
      ['body', ['sort', 'limit', 'cursor'], 'asc', 20, 100],
    ]);
  });
});

describe('orderBreak', () => {
  const item = (id: string, createdAt: string): Json => ({ id, createdAt });
  it.each([
    { given: [item('a', '2026-01-01T00:00:00.000Z'), item('b', '2026-01-02T00:00:00.000Z')], sort: 'asc', want: undefined },
    { given: [item('b', '2026-01-01T00:00:00.000Z'), item('a', '2026-01-01T00:00:00.000Z')], sort: 'asc', want: /#0 b .* then #1 a/ },
    { given: [item('a', '2026-01-01T00:00:00.000Z'), item('b', '2026-01-01T00:00:00.000Z')], sort: 'asc', want: undefined },
    { given: [item('b', '2026-01-01T00:00:00.000Z'), item('a', '2026-01-01T00:00:00.000Z')], sort: 'desc', want: undefined },
    { given: [item('a', '2026-01-01T00:00:00.000Z'), item('b', '2026-01-02T00:00:00.000Z')], sort: 'desc', want: /out of order for sort=desc/ },
    { given: [item('a', '2026-01-01T00:00:00.000Z'), item('a', '2026-01-01T00:00:00.000Z')], sort: 'asc', want: /out of order/ },
  ])('$sort: $want', ({ given, sort, want }) => {
    const broken = orderBreak(given, sort);
    if (want === undefined) expect(broken).toBeUndefined();
    else expect(broken).toMatch(want);
  });
});

describe('toCurl', () => {
  it("quotes for the shell and replaces the caller's key", () => {
    const curl = toCurl({ method: 'POST', url: "http://api.test/?q='x'", headers: { Authorization: 'Bearer tka_secret' }, body: `{"title":"it's"}` }, 'tka_secret');
    expect(curl).toBe(`curl -i -X POST 'http://api.test/?q='\\''x'\\''' -H 'Authorization: Bearer $API_KEY' --data-raw '{"title":"it'\\''s"}'`);
  });
});

describe('the known differences', () => {
  it('each apply to Prism only, name real cases and give a reason', () => {
    const families = new Set(cases.map((entry) => entry.family));
    for (const difference of KNOWN_DIFFERENCES) {
      expect(difference.target).toBe('prism');
      expect(difference.reason.length).toBeGreaterThan(80);
      for (const family of difference.families) expect(families.has(family), `${difference.id}: ${family}`).toBe(true);
    }
    expect(new Set(KNOWN_DIFFERENCES.map((difference) => difference.id)).size).toBe(KNOWN_DIFFERENCES.length);
  });

  it('excuse nothing against the implementation', () => {
    for (const entry of cases) {
      for (const category of ['transport', 'status', 'contract', 'problem', 'semantics'] as const) expect(excusesFor('implementation', entry, category)).toBeUndefined();
    }
  });

  it('never excuse a transport failure, and never the status of a missing or foreign credential', () => {
    for (const entry of cases) {
      expect(excusesFor('prism', entry, 'transport')).toBeUndefined();
      if (['no-authorization', 'other-scheme', 'empty-bearer'].includes(entry.family)) expect(excusesFor('prism', entry, 'status')).toBeUndefined();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { readContractPaths } from '../../src/contract/project.js';
import { deref, isObject, type Json, loadSpec } from '../../src/contract/spec.js';
import { deriveCases, type Family } from '../../src/contract-suite/cases.js';
import { orderBreak } from '../../src/contract-suite/checks.js';
import { Credentials } from '../../src/contract-suite/credentials.js';
import { judgeEffect, NO_EFFECT_FIX } from '../../src/contract-suite/field-effect.js';
import { buildRequest, toCurl } from '../../src/contract-suite/http.js';
import { excusesFor, KNOWN_DIFFERENCES } from '../../src/contract-suite/known-differences.js';
import { PHASE_FAMILIES } from '../../src/contract-suite/phases/index.js';
import { LIMIT, SORT } from '../helpers/spec-fixture.js';
import { specWith } from './fixtures/spec-with.js';

const spec = loadSpec();
const operations = readOperations(spec);
const { cases, coverage, facts } = deriveCases(spec, operations);
const transport = { baseUrl: 'http://api.test/', credentials: new Credentials(spec, { token: 'tka_secret' }), fetch: globalThis.fetch, timeoutMs: 1000 };
const ofOperation = (operationId: string) => cases.filter((entry) => entry.operation.operationId === operationId);

describe('deriveCases on the spec', () => {
  it('gives every case a unique id', () => {
    const ids = cases.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('derives cases for every operation, and a positive case for each', () => {
    for (const operation of operations) {
      expect(
        ofOperation(operation.operationId).some((entry) => entry.polarity === 'positive'),
        operation.operationId,
      ).toBe(true);
    }
    expect(coverage.map((entry) => entry.operation.operationId)).toEqual(operations.map((operation) => operation.operationId));
  });

  it('derives an example case for each named request example, and a field-values case for each field', () => {
    for (const { operation, body, fields } of facts) {
      const ids = new Set(ofOperation(operation.operationId).map((entry) => entry.id));
      for (const name of Object.keys(body?.examples ?? {}))
        expect(ids, `${operation.operationId}: body example ${name}`).toContain(`${operation.operationId} positive example ${name}`);
      for (const field of fields.filter((candidate) => candidate.example !== undefined && candidate.location === 'query')) {
        expect(ids).toContain(`${operation.operationId} positive example parameter ${field.name}`);
      }
      for (const field of fields) expect(ids).toContain(`${operation.operationId} positive field-values ${field.location}/${field.name}`);
    }
  });

  it('tries every value of an enum field, and leaves an optional field out once', () => {
    const sort = cases.find((entry) => entry.id === 'listOwnItems positive field-values body/sort');
    expect(sort?.variants?.values).toEqual([undefined, ...SORT.values]);
    const limit = cases.find((entry) => entry.id === 'listOwnItems positive field-values body/limit');
    expect(limit?.variants?.values).toEqual([undefined, LIMIT.minimum, LIMIT.maximum, LIMIT.default, Math.round((LIMIT.minimum + LIMIT.maximum) / 2)]);
  });

  it('replaces a cursor in an example by a live one, and tries the cursor field with the one the first page offers', () => {
    const nextPage = cases.find((entry) => entry.id === 'listOwnItems positive example nextPage');
    expect(nextPage?.live).toEqual([{ location: 'body', name: 'cursor', component: 'Cursor', source: 'previous-page', fallbacks: [] }]);
    const cursor = cases.find((entry) => entry.id === 'listSharedItemsByQuery positive field-values query/cursor');
    expect(cursor?.variants?.continuation).toMatchObject({ name: 'cursor', source: 'previous-page' });
    expect(cursor?.input.query).toEqual({ limit: LIMIT.minimum });
  });

  it.each([
    { family: 'no-authorization', status: 401, authorization: undefined },
    { family: 'other-scheme', status: 401, authorization: expect.stringMatching(/^Basic /) },
    { family: 'empty-bearer', status: 401, authorization: 'Bearer ' },
    { family: 'unknown-key', status: 401, authorization: expect.stringMatching(/^Bearer tka_[0-9A-Za-z]{38}$/) },
    { family: 'malformed-json', status: 400, authorization: 'Bearer tka_secret' },
    { family: 'wrong-content-type', status: 415, authorization: 'Bearer tka_secret' },
    { family: 'body-too-large', status: 413, authorization: 'Bearer tka_secret' },
  ] as Array<{ family: Family; status: number; authorization: unknown }>)(
    'sends $family to POST / and expects $status',
    ({ family, status, authorization }) => {
      const entry = cases.find((candidate) => candidate.operation.operationId === 'listOwnItems' && candidate.family === family);
      expect(entry?.expectedStatus).toBe(status);
      expect(buildRequest(transport, entry!, entry!.input).headers['Authorization']).toEqual(authorization);
    },
  );

  it('probes an unknown query parameter with a typo of a body field when the operation has no query, never of a header', () => {
    // A header parameter (listed before the body's fields) must not turn the probe into `?XC-lient-Version=`.
    const own = structuredClone(spec.paths['/'] as Record<string, Json>);
    (own['post'] as Record<string, Json>)['parameters'] = [
      { name: 'X-Client-Version', in: 'header', required: false, schema: { type: 'string', maxLength: 20 } },
    ];
    const changed = specWith({ paths: { '/': own } });
    const ids = deriveCases(changed, readOperations(changed)).cases.map((entry) => entry.id);
    expect(ids).toContain('listOwnItems negative unknown-field query/srot');
  });

  // Wire forms of a few cases, as derived from the spec's schemas today: when the spec changes, update this table.
  it.each([
    { id: 'listOwnItems negative invalid-enum body/sort', want: { method: 'POST', url: 'http://api.test/', body: '{"sort":"up"}' } },
    { id: 'listOwnItems negative wrong-type body/limit', want: { method: 'POST', url: 'http://api.test/', body: '{"limit":"ten"}' } },
    { id: 'listOwnItems negative over-maximum body/limit', want: { method: 'POST', url: 'http://api.test/', body: `{"limit":${LIMIT.maximum + 1}}` } },
    { id: 'listOwnItems negative unknown-field body/srot', want: { method: 'POST', url: 'http://api.test/', body: '{"srot":"asc"}' } },
    { id: 'listOwnItems negative unknown-field query/srot', want: { method: 'POST', url: 'http://api.test/?srot=asc', body: '{}' } },
    { id: 'listOwnItems negative malformed-json', want: { method: 'POST', url: 'http://api.test/', body: '{"sort":' } },
    { id: 'listOwnItems negative other-method GET', want: { method: 'GET', url: 'http://api.test/', headers: { Authorization: 'Bearer tka_secret' } } },
    { id: 'listOwnItems negative unknown-path', want: { method: 'POST', url: 'http://api.test/contract-suite-unknown' } },
    { id: 'listSharedItemsByQuery negative invalid-enum query/sort', want: { method: 'GET', url: 'http://api.test/shared?sort=up' } },
    { id: 'listSharedItemsByQuery negative over-maximum query/limit', want: { method: 'GET', url: `http://api.test/shared?limit=${LIMIT.maximum + 1}` } },
    { id: 'listSharedItemsByQuery negative unknown-field query/srot', want: { method: 'GET', url: 'http://api.test/shared?srot=asc' } },
    { id: 'listSharedItemsByQuery negative too-short query/cursor', want: { method: 'GET', url: 'http://api.test/shared?cursor=' } },
    { id: 'listSharedItemsByQuery negative other-method PUT', want: { method: 'PUT', url: 'http://api.test/shared' } },
  ])('builds $id from the schema', ({ id, want }) => {
    const entry = cases.find((candidate) => candidate.id === id);
    expect(entry, `no case ${id}: if the spec changed, update this table`).toBeDefined();
    const request = buildRequest(transport, entry!, entry!.input);
    expect(request).toMatchObject(want);
    if (entry!.family === 'other-method') expect(request.body).toBeUndefined();
  });

  it('expects the status each negative family stands for, and names the offending field of a 422', () => {
    for (const entry of cases.filter((candidate) => candidate.polarity === 'negative')) {
      if (entry.expectedStatus === 422) expect(entry.violation, entry.id).toMatchObject({ in: entry.location, pointer: expect.stringMatching(/^\//) });
      expect(String(entry.expectedStatus) in entry.operation.responses || entry.apiWide, `${entry.id} expects an undocumented ${entry.expectedStatus}`).toBe(
        true,
      );
    }
  });

  it('pads the body of the 413 case to one byte over x-limits.maxBodyBytes', () => {
    const limits = isObject(spec['x-limits']) ? spec['x-limits'] : {};
    const entry = cases.find((candidate) => candidate.id === 'listOwnItems negative body-too-large');
    expect(Buffer.byteLength(buildRequest(transport, entry!, entry!.input).body ?? '')).toBe(Number(limits['maxBodyBytes']) + 1);
  });

  it('runs positive cases of a POST only when the spec marks it x-read-only, and lists documented statuses it cannot provoke', () => {
    expect(cases.filter((entry) => entry.skip !== undefined)).toEqual([]);
    const unmarked = structuredClone(spec);
    delete (unmarked.paths['/'] as { post: Record<string, Json> }).post['x-read-only'];
    const derived = deriveCases(unmarked, readOperations(unmarked));
    const positives = derived.cases.filter((entry) => entry.operation.operationId === 'listOwnItems' && entry.polarity === 'positive');
    expect(positives.length).toBeGreaterThan(0);
    for (const entry of positives)
      expect(entry.skip).toMatch(/^skipped for safety: POST may write, and the spec does not mark listOwnItems `x-read-only: true`/);
    expect(
      derived.cases.filter((entry) => entry.operation.operationId === 'listOwnItems' && entry.polarity === 'negative' && entry.skip !== undefined),
    ).toEqual([]);
    // Its 200 among them now (the positives are skipped), each a documented status with its reason; read from the spec, so a status added to it follows.
    const notProvoked = derived.coverage.find((entry) => entry.operation.operationId === 'listOwnItems')?.notProvoked ?? [];
    const documented = Object.keys(readOperations(spec).find((operation) => operation.operationId === 'listOwnItems')?.responses ?? {});
    expect(notProvoked.map((entry) => entry.status)).toContain('200');
    for (const entry of notProvoked) {
      expect(documented).toContain(entry.status);
      expect(entry.reason, entry.status).toMatch(/\w/);
    }
    expect(notProvoked.find((entry) => entry.status === '503')?.reason).toMatch(/cannot reach its database/);
  });

  it('reads the list options of each operation from the spec: where its cursor is, and the Sort and Limit schemas', () => {
    const schema = (name: string) => deref(spec, (spec.components['schemas'] as Record<string, Json>)[name]);
    const [sort, limit] = [schema('Sort'), schema('Limit')];
    const want = facts.map(({ fields }) => {
      const cursor = fields.find((field) => field.name === 'cursor');
      return cursor
        ? [cursor.location, 'cursor', sort['default'], limit['default'], limit['maximum']]
        : [undefined, undefined, undefined, undefined, undefined];
    });
    expect(facts.map(({ list }) => [list?.location, list?.cursor, list?.defaultSort, list?.defaultLimit, list?.maxLimit])).toEqual(want);
    expect(facts.filter(({ list }) => list !== undefined).length, 'the spec has list operations').toBeGreaterThan(0);
  });
});

describe('judgeEffect', () => {
  const page = (...ids: string[]) => JSON.stringify({ items: ids.map((id) => ({ id })), nextCursor: null });
  it.each([
    { given: [page('a', 'b'), page('b', 'a')], want: { note: 'the answer depends on sort' } },
    {
      given: [page('a', 'b'), page('a', 'b')],
      want: {
        ignored: `field sort (body) of listOwnItems is accepted but ignored: no sort and sort="desc" all gave the same answer, whose list of 2 could have changed. ${NO_EFFECT_FIX}`,
      },
    },
    { given: [page('a'), page('a')], want: { note: expect.stringMatching(/^sort had no visible effect, but that is not provable on this data/) } },
    { given: [page('a', 'b')], want: { note: expect.stringMatching(/fewer than two accepted answers/) } },
  ])('$want', ({ given, want }) => {
    const labels = ['no sort', 'sort="desc"'];
    expect(
      judgeEffect(
        'listOwnItems',
        { location: 'body', name: 'sort' },
        given.map((body, index) => ({ label: labels[index] ?? '', body })),
      ),
    ).toMatchObject(want);
  });

  it('finds an ignored continuation token even on a one-item page: the first answer offered more', () => {
    const first = JSON.stringify({ items: [{ id: 'a' }], nextCursor: 'c1' });
    expect(
      judgeEffect('listOwnItems', { location: 'body', name: 'cursor', continuation: true }, [
        { label: 'no cursor', body: first },
        { label: 'the cursor it offered', body: first },
      ]).ignored,
    ).toMatch(/^field cursor \(body\) of listOwnItems is accepted but ignored/);
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
    const curl = toCurl({ method: 'POST', url: "http://api.test/?q='x'", headers: { Authorization: 'Bearer tka_secret' }, body: `{"title":"it's"}` }, [
      ['tka_secret', '$API_KEY'],
    ]);
    expect(curl).toBe(`curl -i -X POST 'http://api.test/?q='\\''x'\\''' -H 'Authorization: Bearer $API_KEY' --data-raw '{"title":"it'\\''s"}'`);
  });
});

describe('the known differences', () => {
  it('each apply to Prism only, name families derived for a contract of the project (or the spec with GET /items/{id}) and give a reason', () => {
    const withGetItem = specWith('./get-item.yaml');
    const account = loadSpec(readContractPaths(undefined, 'account').spec);
    const derived = [...cases, ...deriveCases(withGetItem, readOperations(withGetItem)).cases, ...deriveCases(account, readOperations(account)).cases];
    // A phase's family (the property phase's valid requests) is reported by the phase, not derived per operation.
    const families = new Set([...derived.map((entry) => entry.family), ...PHASE_FAMILIES]);
    for (const difference of KNOWN_DIFFERENCES) {
      expect(['prism', 'stateful-mock']).toContain(difference.target);
      expect(difference.reason.length).toBeGreaterThan(80);
      for (const family of difference.families) expect(families.has(family), `${difference.id}: ${family}`).toBe(true);
    }
    expect(new Set(KNOWN_DIFFERENCES.map((difference) => difference.id)).size).toBe(KNOWN_DIFFERENCES.length);
  });

  it('excuse nothing against the implementation', () => {
    for (const entry of cases) {
      for (const category of ['transport', 'status', 'contract', 'problem', 'semantics', 'coverage'] as const)
        expect(excusesFor('implementation', entry, category)).toBeUndefined();
    }
  });

  it('never excuse a transport failure or an unchecked operation, and never the status of a missing or foreign credential', () => {
    for (const entry of cases) {
      expect(excusesFor('prism', entry, 'transport')).toBeUndefined();
      expect(excusesFor('prism', entry, 'coverage')).toBeUndefined();
      if (['no-authorization', 'other-scheme', 'empty-bearer'].includes(entry.family)) expect(excusesFor('prism', entry, 'status')).toBeUndefined();
    }
  });
});

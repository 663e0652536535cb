import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import type { Json, JsonObject } from '../../src/contract/spec.js';
import { deriveCases } from '../../src/contract-suite/cases.js';
import { NO_EFFECT_FIX } from '../../src/contract-suite/field-effect.js';
import { formatReport } from '../../src/contract-suite/report.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { FAKE_TOKEN, fakeApi } from './fixtures/fake-api.js';
import { specWith, withTwoOrders } from './fixtures/spec-with.js';

/**
 * The issue "Any operation a spec can declare": adding `GET /items/{id}` (a path
 * parameter, a documented 404) to a copy of the spec must need no change to the
 * suite for it to derive cases, run them and report them.
 */
// Its Sort has the two orders the fake API tells apart, so `sort` serves as the field whose effect is judged.
const spec = withTwoOrders(specWith('./get-item.yaml'));
const operations = readOperations(spec);
const { cases, coverage } = deriveCases(spec, operations);
const ofGetItem = cases.filter((entry) => entry.operation.operationId === 'getItem');
const ITEM_ID = /^itm_[0-9a-z]{16}$/;

function failures(report: SuiteReport): string[] {
  return report.results
    .filter((result) => result.outcome === 'fail')
    .map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}\n  ${result.curl ?? ''}`);
}

describe('deriving cases for an operation added to the spec', () => {
  it('derives positive, authentication, path-parameter and routing cases for GET /items/{id} from the spec alone', () => {
    expect(new Set(ofGetItem.map((entry) => entry.family))).toEqual(
      new Set([
        'minimal-request',
        'field-values',
        'content-type-without-body',
        'no-authorization',
        'other-scheme',
        'empty-bearer',
        'malformed-key',
        'unknown-key',
        'pattern-mismatch',
        'too-long',
        'too-short',
        'unknown-field',
        'unknown-id',
        'other-method',
        'unknown-path',
      ]),
    );
  });

  it('expects the documented 404 for a well-formed id that cannot exist', () => {
    const unknown = ofGetItem.find((entry) => entry.family === 'unknown-id');
    expect(unknown?.expectedStatus).toBe(404);
    expect(unknown?.input.path['id']).toMatch(ITEM_ID);
    // Drawn at random from the pattern, so it is neither the example nor an id a server made.
    expect(unknown?.input.path['id']).not.toBe('itm_0a1b2c3d4e5f6g7h');
  });

  it.each(['pattern-mismatch', 'too-long', 'too-short'])('expects 422 naming the path parameter for a malformed id (%s)', (family) => {
    const malformed = ofGetItem.find((entry) => entry.family === family);
    expect(malformed).toMatchObject({ expectedStatus: 422, location: 'path', violation: { in: 'path', pointer: '/id' } });
    expect(malformed?.input.path['id']).not.toMatch(ITEM_ID);
  });

  it('takes the id of its positive case from earlier answers, so it runs after the operations that answer with ids', () => {
    const minimal = ofGetItem.find((entry) => entry.family === 'minimal-request');
    expect(minimal?.live).toEqual([{ location: 'path', name: 'id', component: 'ItemId', source: 'seen', fallbacks: ['itm_0a1b2c3d4e5f6g7h'] }]);
    expect(cases.at(-1)?.operation.operationId).toBe('getItem');
  });

  it('lists the documented statuses it does not provoke, with the reason', () => {
    expect(coverage.find((entry) => entry.operation.operationId === 'getItem')?.notProvoked.map((entry) => entry.status)).toEqual(['429', '500', '503']);
  });
});

describe('the suite against an in-process API that follows the spec with GET /items/{id}', async () => {
  const report = await runContractSuite({ baseUrl: 'http://fake.test', token: FAKE_TOKEN, spec, fetch: fakeApi(spec) });
  const result = (id: string) => report.results.find((entry) => entry.id === id);

  it('passes', () => {
    expect(failures(report), formatReport(report)).toEqual([]);
  });

  it('reports every operation with its case count, the new one included', () => {
    expect(report.operations.map((operation) => operation.operationId)).toEqual(operations.map((operation) => operation.operationId));
    const getItem = report.operations.find((operation) => operation.operationId === 'getItem');
    expect(getItem).toMatchObject({ cases: ofGetItem.length, passed: ofGetItem.length, failed: 0, skipped: 0 });
    expect(formatReport(report)).toMatch(new RegExp(`^ {2}getItem +GET /items/\\{id\\} +${ofGetItem.length} cases: ${ofGetItem.length} passed$`, 'm'));
  });

  it('sends an id a list answered with, and gets the item', () => {
    expect(result('getItem positive minimal-request')?.request?.url).toBe('http://fake.test/items/itm_0000000000000001');
  });

  it('gets 404 for the unknown id and 422 in:path for the malformed ones', () => {
    expect(result('getItem negative unknown-id path/id')).toMatchObject({ outcome: 'pass', status: 404 });
    expect(result('getItem negative pattern-mismatch path/id')).toMatchObject({ outcome: 'pass', status: 422 });
  });

  it('shows what a field does to the answer', () => {
    expect(result('listOwnItems positive field-values body/sort')?.note).toBe('the answer depends on sort');
  });
});

describe('a handler that accepts a field but ignores it', async () => {
  const report = await runContractSuite({ baseUrl: 'http://fake.test', token: FAKE_TOKEN, spec, fetch: fakeApi(spec, { ignore: ['sort'] }) });

  it.each(['listOwnItems', 'listSharedItems', 'listSharedItemsByQuery'])('fails %s with a finding that names the operation and the field', (operationId) => {
    const location = operationId === 'listSharedItemsByQuery' ? 'query' : 'body';
    const fieldValues = report.results.find((entry) => entry.id === `${operationId} positive field-values ${location}/sort`);
    expect(fieldValues?.outcome).toBe('fail');
    expect(fieldValues?.findings.map((finding) => finding.message)).toContain(
      `field sort (${location}) of ${operationId} is accepted but ignored: no sort, sort="asc" and sort="desc" all gave the same answer, whose list of 5 could have changed. ${NO_EFFECT_FIX}`,
    );
    expect(formatReport(report)).toMatch(/FAILED: \d+ checks found a contract violation/);
  });
});

describe('a new request field that the handlers accept but ignore', async () => {
  // A developer adds `colour` to ListRequest; the server validates it (the schema allows it) and no handler reads it.
  const listRequest = structuredClone(spec.components['schemas'] as JsonObject)['ListRequest'] as JsonObject;
  (listRequest['properties'] as JsonObject)['colour'] = { type: 'string', enum: ['red', 'blue'] };
  const changed = specWith({ components: { schemas: { ListRequest: listRequest } } });
  const report = await runContractSuite({ baseUrl: 'http://fake.test', token: FAKE_TOKEN, spec: changed, fetch: fakeApi(changed, { ignore: ['colour'] }) });

  it.each(['listOwnItems', 'listSharedItems'])('fails %s with a message naming the operation and the field', (operationId) => {
    const result = report.results.find((entry) => entry.id === `${operationId} positive field-values body/colour`);
    expect(result?.outcome).toBe('fail');
    expect(result?.findings.map((finding) => finding.message)).toEqual([
      `field colour (body) of ${operationId} is accepted but ignored: no colour, colour="red" and colour="blue" all gave the same answer, whose list of 5 could have changed. ${NO_EFFECT_FIX}`,
    ]);
  });
});

describe('a field that changes nothing the suite can prove (issue 31: no false alarm)', async () => {
  // `offset` can only be 0, its default: left out and 0 are one value by the spec, so the same answer proves nothing.
  const listRequest = structuredClone(spec.components['schemas'] as JsonObject)['ListRequest'] as JsonObject;
  (listRequest['properties'] as JsonObject)['offset'] = { type: 'integer', minimum: 0, maximum: 0, default: 0 };
  const changed = specWith({ components: { schemas: { ListRequest: listRequest } } });
  const equalValues = await runContractSuite({
    baseUrl: 'http://fake.test',
    token: FAKE_TOKEN,
    spec: changed,
    fetch: fakeApi(changed, { ignore: ['offset'] }),
  });
  // The same handler bug as above, on a spec that does not turn the ignored-fields rule on (as a foreign spec would not).
  const withoutRules = structuredClone(spec) as JsonObject;
  delete withoutRules['x-contract-suite'];
  const ruleOff = await runContractSuite({
    baseUrl: 'http://fake.test',
    token: FAKE_TOKEN,
    spec: withoutRules as typeof spec,
    fetch: fakeApi(withoutRules as typeof spec, { ignore: ['sort'] }),
  });

  it('does not fail a field tried only as none and its default', () => {
    const result = equalValues.results.find((entry) => entry.id === 'listOwnItems positive field-values body/offset');
    expect(result?.outcome, result?.findings.map((finding) => finding.message).join('; ')).toBe('pass');
    expect(result?.note).toBe('offset: only values the spec makes equal were accepted (0; left out means 0), so its effect is not judged');
  });

  it('reports an ignored field as a note, not a violation, where the spec does not turn the rule on', () => {
    const result = ruleOff.results.find((entry) => entry.id === 'listOwnItems positive field-values body/sort');
    expect(result?.outcome).toBe('pass');
    expect(result?.note).toBe(
      'field sort (body) of listOwnItems is accepted but ignored: no sort, sort="asc" and sort="desc" all gave the same answer, whose list of 5 could have changed. (a note: the spec does not turn on the ignored-fields rule)',
    );
  });
});

describe('a filter and a header added to the spec, which the API reads', async () => {
  // What a developer adds to the project's spec and implements: these tests run on that spec, so they must pass.
  const shared = structuredClone(spec.paths['/shared'] as JsonObject);
  const byQuery = shared['get'] as JsonObject;
  byQuery['parameters'] = [
    ...(byQuery['parameters'] as Json[]),
    { name: 'tag', in: 'query', required: false, schema: { type: 'string', pattern: '^[a-z]+$', maxLength: 40 }, example: 'urgent' },
  ];
  const own = structuredClone(spec.paths['/'] as JsonObject);
  (own['post'] as JsonObject)['parameters'] = [
    { name: 'X-Client-Version', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$', maxLength: 20 } },
  ];
  const changed = specWith({ paths: { '/shared': shared, '/': own } });
  const report = await runContractSuite({ baseUrl: 'http://fake.test', token: FAKE_TOKEN, spec: changed, fetch: fakeApi(changed) });

  it('passes, the new fields checked like the others', () => {
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(report.results.find((entry) => entry.id === 'listSharedItemsByQuery positive field-values query/tag')?.note).toBe('the answer depends on tag');
    expect(report.results.find((entry) => entry.id === 'listOwnItems negative pattern-mismatch header/X-Client-Version')).toMatchObject({
      outcome: 'pass',
      status: 422,
    });
  });
});

describe('a header the spec says leaves the answer as it is (x-no-effect), which the API only logs', async () => {
  const own = structuredClone(spec.paths['/'] as JsonObject);
  const header = { name: 'X-Client-Version', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$', maxLength: 20 } };
  const run = (parameter: JsonObject) => {
    (own['post'] as JsonObject)['parameters'] = [parameter];
    const changed = specWith({ paths: { '/': own } });
    return runContractSuite({ baseUrl: 'http://fake.test', token: FAKE_TOKEN, spec: changed, fetch: fakeApi(changed, { ignore: ['X-Client-Version'] }) });
  };
  const [unmarked, marked] = [await run(header), await run({ ...header, 'x-no-effect': 'written to the request log, for support' })];
  const fieldCase = (report: SuiteReport) => report.results.find((entry) => entry.id === 'listOwnItems positive field-values header/X-Client-Version');

  it('fails unmarked, naming both ways out: read it, or say x-no-effect in the spec', () => {
    expect(fieldCase(unmarked)?.outcome).toBe('fail');
    expect(
      fieldCase(unmarked)
        ?.findings.map((finding) => finding.message)
        .join('\n'),
    ).toContain('x-no-effect: <why>');
  });

  it("passes marked, its values still sent and checked, and the report gives the spec's reason", () => {
    expect(failures(marked), formatReport(marked)).toEqual([]);
    expect(fieldCase(marked)).toMatchObject({
      outcome: 'pass',
      note: 'X-Client-Version leaves the answer as it is, as the spec says (x-no-effect: written to the request log, for support)',
    });
    // Its constraints are still held: a value out of its pattern is refused.
    expect(marked.results.find((entry) => entry.id === 'listOwnItems negative pattern-mismatch header/X-Client-Version')).toMatchObject({
      outcome: 'pass',
      status: 422,
    });
  });
});

describe('a read whose path parameter no answer carries (an inline format: uuid)', async () => {
  // A third trial of issue 24: GET /collections/{collectionId}, whose id is a UUID no list answers with. The spec's example
  // id is the mock's data; the server answered it 404, and the suite failed "a valid request was not accepted".
  const item = (spec.paths['/items/{id}'] ?? {}) as JsonObject;
  const get = item['get'] as JsonObject;
  const uuid = { type: 'string', format: 'uuid', maxLength: 36 };
  const [parameter] = get['parameters'] as JsonObject[];
  const changed = specWith({
    paths: {
      '/items/{id}': { ...item, get: { ...get, parameters: [{ ...parameter, schema: uuid, example: '3f2b8c1e-9d4a-4e7b-8c21-5a6f7e8d9c0b' }] } },
    },
  });
  const report = await runContractSuite({ baseUrl: 'http://fake.test', token: FAKE_TOKEN, spec: changed, fetch: fakeApi(changed) });

  it("skips its positive cases when the spec's example id does not exist there, saying so, as for an id of a component", () => {
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(report.results.find((result) => result.id === 'getItem positive minimal-request')).toMatchObject({
      outcome: 'skip',
      note: "no id seen in earlier answers, and the spec's example id does not exist here (404)",
    });
  });

  it('refuses an id that is not a UUID with a 422 naming it: one bad value for its format, as for each other constraint', () => {
    expect(report.results.find((result) => result.id === 'getItem negative format-mismatch path/id')).toMatchObject({
      outcome: 'pass',
      status: 422,
      title: 'malformed id in the path: id "not-a-uuid" not a uuid',
    });
  });
});

describe('an operation no case can check', () => {
  const item = (spec.paths['/items/{id}'] ?? {}) as JsonObject;
  const unchecked = (operation: JsonObject) =>
    specWith({
      paths: {
        '/items/{id}': {
          ...item,
          // Shares its path with getItem (which takes the routing cases), is open (no 401), documents no 4xx.
          delete: {
            operationId: 'deleteItem',
            summary: 'Delete an item',
            security: [],
            parameters: (item['get'] as JsonObject)['parameters'] as Json,
            ...operation,
          },
        },
      },
    });

  it.each<{ given: string; responses: JsonObject; want: RegExp }>([
    {
      given: 'a write whose positive cases are all skipped for safety',
      responses: { '204': { description: 'Deleted.' } },
      want: /deleteItem \(DELETE \/items\/\{id\}\) was not checked at all: all 3 of its cases were skipped/,
    },
    {
      given: 'nothing derivable at all',
      responses: { '500': { description: 'Broken.' }, '503': { description: 'Down.' } },
      want: /deleteItem \(DELETE \/items\/\{id\}\) was not checked at all: no case could be derived/,
    },
  ])('fails the run by name: $given', async ({ responses, want }) => {
    const changed = unchecked({ responses });
    const report = await runContractSuite({ baseUrl: 'http://fake.test', token: FAKE_TOKEN, spec: changed, fetch: fakeApi(changed) });
    const coverageResult = report.results.find((entry) => entry.id === 'deleteItem coverage');
    expect(coverageResult?.outcome).toBe('fail');
    expect(coverageResult?.findings[0]?.message).toMatch(want);
    expect(report.summary.failed).toBe(1);
    expect(formatReport(report)).toMatch(/^ {2}deleteItem +DELETE \/items\/\{id\} +\d+ cases?.* NOT CHECKED$/m);
  });

  it('runs the skipped cases with allowWrites', async () => {
    const changed = unchecked({ responses: { '204': { description: 'Deleted.' } } });
    const { cases: allowed } = deriveCases(changed, readOperations(changed), { allowWrites: true });
    expect(allowed.filter((entry) => entry.operation.operationId === 'deleteItem' && entry.skip !== undefined)).toEqual([]);
  });
});

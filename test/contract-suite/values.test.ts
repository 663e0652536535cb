import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { type Json, loadSpec } from '../../src/contract/spec.js';
import { deriveCases } from '../../src/contract-suite/cases.js';
import { Credentials } from '../../src/contract-suite/credentials.js';
import { buildRequest } from '../../src/contract-suite/http.js';
import { seeded, stringMatching } from '../../src/contract-suite/values/pattern.js';
import { type Harvest, harvest } from '../../src/contract-suite/values/schema-refs.js';
import { SchemaValues } from '../../src/contract-suite/values/schema-values.js';
import { LIMIT, SORT } from '../helpers/spec-fixture.js';
import { specWith } from './fixtures/spec-with.js';

const spec = loadSpec();

describe('stringMatching', () => {
  it.each([
    { pattern: '^itm_[0-9a-z]{16}$' },
    { pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)?$' },
    { pattern: '^(red|green|blue)-\\d{2,4}$' },
    { pattern: '^[^/]{3}x?y*$' },
    { pattern: 'v\\d+\\.\\d+' },
  ])('makes strings that match $pattern', ({ pattern }) => {
    for (let seed = 1; seed <= 20; seed++) expect(stringMatching(pattern, seeded(seed))).toMatch(new RegExp(pattern, 'u'));
  });

  it.each(['^(?=a)a$', '^(a)\\1$', '^\\bword$'])('gives up on %s rather than guess', (pattern) => {
    expect(stringMatching(pattern, seeded(1))).toBeUndefined();
  });

  it.each([
    { pattern: '^rep_[0-9]{1,6}$', length: 10 },
    { pattern: '^k[a-z]+$', length: 18 },
    { pattern: '^k[a-z]{2,}$', length: 19 },
    { pattern: '^x?y{3}$', length: 4 },
  ])('at its widest, repeats each quantifier as often as $pattern allows ($length characters)', ({ pattern, length }) => {
    for (let seed = 1; seed <= 20; seed++) {
      const value = stringMatching(pattern, seeded(seed), { widest: true });
      expect(value).toMatch(new RegExp(pattern, 'u'));
      expect(value).toHaveLength(length);
    }
  });

  it('is stable for a seed', () => {
    expect(stringMatching('^itm_[0-9a-z]{16}$', seeded(7))).toBe(stringMatching('^itm_[0-9a-z]{16}$', seeded(7)));
  });
});

describe('SchemaValues', () => {
  const values = new SchemaValues(spec);
  const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

  it.each([
    { schema: ref('Sort'), want: SORT.values },
    // Both bounds, the default, and one value inside (the middle): a fault inside the domain shows there.
    { schema: ref('Limit'), want: [LIMIT.minimum, LIMIT.maximum, LIMIT.default, Math.round((LIMIT.minimum + LIMIT.maximum) / 2)] },
    { schema: { type: 'boolean' }, want: [true, false] },
  ])('tries every value that tells a field apart: $want', ({ schema, want }) => {
    expect(values.variants(schema)).toEqual(want);
  });

  it('draws an id that cannot exist from the pattern, at random', () => {
    const [a, b] = [values.unguessable(ref('ItemId')), values.unguessable(ref('ItemId'))];
    expect(a).toMatch(/^itm_[0-9a-z]{16}$/);
    expect(a).not.toBe(b);
  });

  // A one-digit draw from `rep_[0-9]{1,6}` met a real `rep_2` in CI: the unknown-id case called a correct server wrong.
  it('draws an id that cannot exist with all the room its pattern gives', () => {
    const schema = { type: 'string', pattern: '^rep_[0-9]{1,6}$' };
    for (let draw = 0; draw < 50; draw++) expect(values.unguessable(schema)).toMatch(/^rep_[0-9]{6}$/);
    // Where the widest breaks `maxLength`, a narrower draw is kept rather than nothing.
    expect(values.unguessable({ ...schema, maxLength: 7 })).toMatch(/^rep_[0-9]{1,3}$/);
  });

  it('only hands out values the schema accepts', () => {
    expect(values.one(ref('Cursor'))).toMatch(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)?$/);
    expect(values.one({ type: 'integer', minimum: 5, multipleOf: 5 })).toBe(5);
    expect(values.one({ type: 'string', enum: ['x'] }, 'not-in-enum')).toBe('x');
  });
});

describe('harvest', () => {
  it('collects values by the component their schema refers to', () => {
    const found: Harvest = new Map();
    const page = {
      items: [{ id: 'itm_0000000000000001', title: 't', ownerId: 'usr_0000000000000001', createdAt: '2026-01-01T00:00:00.000Z' }],
      nextCursor: 'abc',
    };
    harvest(spec, { $ref: '#/components/schemas/ItemPage' }, page, found);
    expect(Object.fromEntries(found)).toEqual({ ItemId: ['itm_0000000000000001'], UserId: ['usr_0000000000000001'], Cursor: ['abc'] });
  });
});

describe('a header parameter', () => {
  const withHeader = specWith({
    paths: {
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          summary: 'Get one item',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { $ref: '#/components/schemas/ItemId' } },
            { name: 'X-Detail', in: 'header', required: false, schema: { type: 'string', enum: ['brief', 'full'] } },
          ],
          responses: {
            '200': { description: 'The item.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } },
            '422': { $ref: '#/components/responses/UnprocessableContent' },
          },
        },
      },
    },
  });
  const cases = deriveCases(withHeader, readOperations(withHeader)).cases.filter((entry) => entry.operation.operationId === 'getItem');
  const transport = { baseUrl: 'http://api.test', credentials: new Credentials(spec, { token: 'tka_secret' }), fetch: globalThis.fetch, timeoutMs: 1000 };

  it('is tried with each of its values, sent as a header', () => {
    const values = cases.find((entry) => entry.id === 'getItem positive field-values header/X-Detail');
    expect(values?.variants?.values).toEqual([undefined, 'brief', 'full']);
  });

  it('gets a 422 case naming it with in: header', () => {
    const invalid = cases.find((entry) => entry.id === 'getItem negative invalid-enum header/X-Detail');
    expect(invalid).toMatchObject({ expectedStatus: 422, violation: { in: 'header', pointer: '/X-Detail' } });
    expect(buildRequest(transport, invalid!, invalid!.input).headers).toMatchObject({ 'X-Detail': 'up' });
  });
});

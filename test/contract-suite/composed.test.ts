/**
 * Composed schemas and field semantics (issue 31, point 2), on a small inline spec: an `allOf` body gets
 * every branch's fields (Galaxy's `createUser` was sent `{}`), a `oneOf` body with a discriminator gets a
 * body per alternative and each alternative's fields varied inside it, a read-only property is never sent
 * even where the schema requires it, and `full` sets every optional field at any depth.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import type { Json, OpenApiDocument } from '../../src/contract/spec.js';
import { deriveCases } from '../../src/contract-suite/cases.js';
import { validValue } from '../../src/contract-suite/phases/arbitraries.js';
import { branchesOf, mergeAllOf } from '../../src/contract-suite/values/composed.js';
import { requestView } from '../../src/contract-suite/values/request-view.js';
import { SchemaValues } from '../../src/contract-suite/values/schema-values.js';

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json) => ({ content: { 'application/json': { schema } } });

const spec = {
  openapi: '3.1.0',
  info: { title: 'Composed', version: '1' },
  paths: {
    '/users': {
      post: {
        operationId: 'createUser',
        requestBody: { required: true, ...json({ allOf: [ref('UserName'), ref('UserSecret')] }) },
        responses: { '201': { description: 'made', ...json(ref('User')) }, '400': { description: 'bad' } },
      },
    },
    '/pets': {
      post: {
        operationId: 'createPet',
        requestBody: { required: true, ...json(ref('NewPet')) },
        responses: { '201': { description: 'made', ...json(ref('NewPet')) }, '400': { description: 'bad' } },
      },
    },
  },
  components: {
    schemas: {
      UserName: { type: 'object', required: ['username'], properties: { username: { type: 'string', minLength: 3, maxLength: 20 } } },
      UserSecret: {
        type: 'object',
        required: ['email', 'password'],
        properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 8, writeOnly: true } },
      },
      User: {
        type: 'object',
        required: ['id', 'username'],
        properties: { id: { type: 'integer', readOnly: true }, username: { type: 'string' }, password: { type: 'string', writeOnly: true } },
      },
      NewPet: {
        oneOf: [ref('Cat'), ref('Dog')],
        discriminator: { propertyName: 'petType', mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' } },
      },
      Cat: {
        type: 'object',
        required: ['petType', 'name', 'id'],
        additionalProperties: false,
        properties: {
          id: { type: 'integer', readOnly: true },
          petType: { type: 'string', enum: ['cat'] },
          name: { type: 'string', maxLength: 30 },
          indoor: { type: 'boolean' },
          owner: { type: 'object', properties: { name: { type: 'string' }, phone: { type: ['string', 'null'], maxLength: 15 } } },
        },
      },
      Dog: {
        type: 'object',
        required: ['petType', 'name', 'id'],
        additionalProperties: false,
        properties: {
          id: { type: 'integer', readOnly: true },
          petType: { type: 'string', enum: ['dog'] },
          name: { type: 'string', maxLength: 30 },
          barks: { type: 'integer', minimum: 0, maximum: 10 },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

const values = new SchemaValues(spec);
const { cases, facts } = deriveCases(spec, readOperations(spec));
const factsOf = (operationId: string) => facts.find((entry) => entry.operation.operationId === operationId);
const caseIds = cases.map((entry) => entry.id);

describe('allOf', () => {
  it('merges every branch: the properties and required fields of both', () => {
    const merged = mergeAllOf(spec, { allOf: [ref('UserName'), ref('UserSecret')] });
    expect(Object.keys(merged['properties'] as object)).toEqual(['email', 'password', 'username']);
    expect(merged['required']).toEqual(['username', 'email', 'password']);
  });

  it('keeps the strictest bound where two branches bound one field', () => {
    const merged = mergeAllOf(spec, {
      allOf: [
        { type: 'integer', minimum: 1, maximum: 100 },
        { type: 'number', minimum: 5, maximum: 50 },
      ],
    });
    expect(merged).toMatchObject({ type: 'integer', minimum: 5, maximum: 50 });
  });

  it('gives createUser a body with the required fields of every branch, not {}', () => {
    const createUser = factsOf('createUser');
    expect(createUser?.blocked).toBeUndefined();
    expect(createUser?.baseline.body).toMatchObject({ username: expect.any(String), email: expect.any(String), password: expect.any(String) });
    expect(createUser?.fields.map((field) => field.name).sort()).toEqual(['email', 'password', 'username']);
    expect(caseIds).toContain('createUser negative too-long body/username');
  });
});

describe('oneOf with a discriminator', () => {
  it('reads each alternative with the discriminator value its mapping gives', () => {
    expect(branchesOf(spec, ref('NewPet')).map((branch) => [branch.label, branch.discriminator])).toEqual([
      ['cat', { propertyName: 'petType', value: 'cat' }],
      ['dog', { propertyName: 'petType', value: 'dog' }],
    ]);
  });

  it('sends a minimal body of each alternative, naming it by its discriminator, the read-only id left out though required', () => {
    const byKey = Object.fromEntries(cases.filter((entry) => entry.operation.operationId === 'createPet').map((entry) => [entry.id, entry.input.body]));
    expect(byKey['createPet positive minimal-request branch cat']).toEqual({ petType: 'cat', name: expect.any(String) });
    expect(byKey['createPet positive minimal-request branch dog']).toEqual({ petType: 'dog', name: expect.any(String) });
    expect(factsOf('createPet')?.blocked).toBeUndefined();
  });

  it('generates random values of every alternative, each naming itself, all valid', () => {
    const arbitrary = validValue(spec, values, ref('NewPet'), 'body');
    const drawn = fc.sample(arbitrary ?? fc.constant(null), { seed: 3, numRuns: 60 });
    expect(drawn.filter((value) => !values.isValid(ref('NewPet'), value))).toEqual([]);
    expect(new Set(drawn.map((value) => (value as { petType?: string }).petType))).toEqual(new Set(['cat', 'dog']));
  });

  it("varies each alternative's own fields inside a body of that alternative, never the discriminator", () => {
    const barks = cases.find((entry) => entry.id === 'createPet positive field-values body/dog/barks');
    expect(barks?.input.body).toMatchObject({ petType: 'dog' });
    expect(barks?.variants?.values).toEqual([undefined, 0, 10, 5]);
    const tooMany = cases.find((entry) => entry.id === 'createPet negative over-maximum body/dog/barks');
    expect(tooMany?.input.body).toMatchObject({ petType: 'dog', barks: 11 });
    expect(caseIds).toContain('createPet positive field-values body/cat/indoor');
    expect(caseIds.some((id) => id.includes('petType'))).toBe(false);
  });
});

describe('readOnly and optional fields', () => {
  it('leaves read-only properties out of a request schema, and out of its required list', () => {
    const view = requestView(spec, ref('User')) as Record<string, Json>;
    expect(Object.keys(view['properties'] as object)).toEqual(['username', 'password']);
    expect(view['required']).toEqual(['username']);
    // A schema with nothing read-only stays as written, its $ref with it.
    expect(requestView(spec, ref('UserName'))).toEqual(ref('UserName'));
  });

  it('sets every optional field at any depth in a full value, never a read-only one, and it is valid', () => {
    const cat = values.full(ref('Cat'));
    expect(cat).toMatchObject({
      petType: expect.any(String),
      name: expect.any(String),
      indoor: true,
      owner: { name: expect.any(String), phone: expect.any(String) },
    });
    expect(cat).not.toHaveProperty('id');
    const pet = values.full(ref('NewPet'));
    expect(pet).toMatchObject({ petType: 'cat', indoor: true, owner: { name: expect.any(String) } });
  });
});

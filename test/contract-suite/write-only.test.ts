/** A `writeOnly` property is never accepted back in an answer (issue 31, point 2), at any depth and through composition. */
import { describe, expect, it } from 'vitest';
import type { Json, OpenApiDocument } from '../../src/contract/spec.js';
import { writeOnlyIn } from '../../src/contract-suite/write-only.js';

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const spec = {
  openapi: '3.1.0',
  info: { title: 'Secrets', version: '1' },
  paths: {},
  components: {
    schemas: {
      Fields: { type: 'object', properties: { name: { type: 'string' }, secret: { type: 'string', writeOnly: true } } },
      Pet: { allOf: [ref('Fields'), { type: 'object', properties: { id: { type: 'integer', readOnly: true }, owner: ref('Owner') } }] },
      Owner: { type: 'object', properties: { login: { type: 'string' }, password: { type: 'string', writeOnly: true } } },
      Dog: { type: 'object', properties: { type: { type: 'string' }, chip: { type: 'string', writeOnly: true } } },
      Cat: { type: 'object', properties: { type: { type: 'string' }, chip: { type: 'string' } } },
      Animal: {
        oneOf: [ref('Dog'), ref('Cat')],
        discriminator: { propertyName: 'type', mapping: { dog: '#/components/schemas/Dog', cat: '#/components/schemas/Cat' } },
      },
      Plain: { oneOf: [ref('Dog'), ref('Cat')] },
    },
  },
} as unknown as OpenApiDocument;

describe('writeOnlyIn', () => {
  it('finds a writeOnly property through allOf and at any depth, in a list too', () => {
    const pet = { id: 1, name: 'Rex', secret: 'chip-1', owner: { login: 'alice', password: 'hunter2' } };
    expect(writeOnlyIn(spec, ref('Pet'), pet)).toEqual(['/secret', '/owner/password']);
    expect(writeOnlyIn(spec, { type: 'array', items: ref('Pet') }, [{ name: 'a' }, pet])).toEqual(['/1/secret', '/1/owner/password']);
    expect(writeOnlyIn(spec, ref('Pet'), { id: 1, name: 'Rex' })).toEqual([]);
  });

  it('reads a oneOf through the alternative its discriminator names', () => {
    expect(writeOnlyIn(spec, ref('Animal'), { type: 'dog', chip: 'x' })).toEqual(['/chip']);
    expect(writeOnlyIn(spec, ref('Animal'), { type: 'cat', chip: 'x' })).toEqual([]);
  });

  it('without a discriminator, counts a property only where every alternative marks it writeOnly', () => {
    expect(writeOnlyIn(spec, ref('Plain'), { type: 'dog', chip: 'x' })).toEqual([]);
  });
});

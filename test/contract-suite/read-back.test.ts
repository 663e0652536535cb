/** What a write sent, read back at any depth (issue 31, point 2): an optional field inside a `oneOf` dropped by a create is found. */
import { describe, expect, it } from 'vitest';
import type { Json, OpenApiDocument } from '../../src/contract/spec.js';
import { readBackDifferences } from '../../src/contract-suite/read-back.js';

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const spec = {
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1' },
  paths: {},
  components: {
    schemas: {
      PetFields: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          secret: { type: 'string', writeOnly: true },
          details: {
            oneOf: [ref('Dog'), ref('Cat')],
            discriminator: { propertyName: 'type', mapping: { dog: '#/components/schemas/Dog', cat: '#/components/schemas/Cat' } },
          },
        },
      },
      Dog: { type: 'object', properties: { type: { type: 'string' }, barks: { type: 'boolean' }, breed: { type: 'string' } } },
      Cat: { type: 'object', properties: { type: { type: 'string' }, lives: { type: 'integer' }, color: { type: 'string' } } },
      Pet: { allOf: [ref('PetFields'), { type: 'object', properties: { id: { type: 'integer', readOnly: true } } }] },
    },
  },
} as unknown as OpenApiDocument;

const sent = { name: 'Rex', secret: 'chip', details: { type: 'dog', barks: true, breed: 'collie' } };
const differences = (resource: Json) => readBackDifferences(spec, { schema: ref('PetFields'), sent }, { schema: ref('Pet'), resource });

describe('readBackDifferences', () => {
  it('finds nothing when every field reads back, the writeOnly one left out', () => {
    expect(differences({ id: 1, name: 'Rex', details: { type: 'dog', barks: true, breed: 'collie' } })).toEqual([]);
  });

  it('finds an optional field of a oneOf dropped, through allOf and the discriminator', () => {
    expect(differences({ id: 1, name: 'Rex', details: { type: 'dog', barks: true } })).toEqual([{ pointer: '/details/breed', sent: 'collie' }]);
  });

  it('finds a value that reads back otherwise, at any depth', () => {
    expect(differences({ id: 1, name: 'Max', details: { type: 'dog', barks: false, breed: 'collie' } })).toEqual([
      { pointer: '/name', sent: 'Rex', read: 'Max' },
      { pointer: '/details/barks', sent: true, read: false },
    ]);
  });

  it('does not judge a field the read has no room for', () => {
    expect(readBackDifferences(spec, { schema: {}, sent: { extra: 1 } }, { schema: ref('Pet'), resource: { id: 1 } })).toEqual([]);
  });
});

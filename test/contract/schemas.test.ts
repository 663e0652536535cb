import { describe, expect, it } from 'vitest';
import { checkSchema, compileSpecSchema, createSpecAjv } from '../../src/contract/schemas.js';
import type { OpenApiDocument } from '../../src/contract/spec.js';

/** A spec with one component schema, as `createSpecAjv` reads it. */
function specWith(schema: object): OpenApiDocument {
  return { openapi: '3.1.0', paths: {}, components: { schemas: { Thing: schema } } } as unknown as OpenApiDocument;
}

describe("schemas are held to JSON Schema 2020-12's meta-schema by one shared Ajv", () => {
  it("refuses a component schema that breaks the meta-schema, with Ajv's own message", () => {
    expect(() => createSpecAjv(specWith({ type: 'strin' }))).toThrow(/^schema is invalid: .*\/type must be equal to one of the allowed values/);
    expect(() => createSpecAjv(specWith({ type: 'string', minLength: -1 }))).toThrow(/^schema is invalid: .*minLength must be >= 0/);
  });

  it('refuses an inline schema that breaks it when compiled', () => {
    const ajv = createSpecAjv(specWith({ type: 'string' }));
    expect(() => compileSpecSchema(ajv, { type: 'object', required: 'name' })).toThrow(/^schema is invalid: .*required must be array/);
    expect(compileSpecSchema(ajv, { $ref: '#/components/schemas/Thing' })('text')).toBe(true);
  });

  it('leaves the check out only when asked to, as Ajv does', () => {
    expect(() => createSpecAjv(specWith({ type: 'string', minLength: -1 }), { validateSchema: false })).not.toThrow();
  });

  it("still refuses an unknown keyword: strict mode is the compiling Ajv's, not the meta-schema's", () => {
    const ajv = createSpecAjv(specWith({ type: 'string' }));
    expect(() => compileSpecSchema(ajv, { type: 'string', maxLenght: 3 })).toThrow(/unknown keyword: "maxLenght"/);
    expect(() => checkSchema({ type: 'string' })).not.toThrow();
  });
});

import fc from 'fast-check';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../../src/contract/spec.js';

/**
 * fast-check arbitraries read from the spec's own JSON Schemas at run time, so a
 * field, bound or enum value added to the spec is fuzzed without touching the tests.
 * Only the keywords the request schemas use are understood; any other keyword
 * fails loudly rather than being fuzzed as if it were absent.
 */
const KNOWN_KEYWORDS = new Set([
  '$ref',
  'type',
  'enum',
  'default',
  'description',
  'example',
  'title',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'format',
]);

/** The integer formats OpenAPI defines, as the range each allows; any other format fails loudly. */
const INTEGER_FORMATS: Record<string, { min: number; max: number }> = {
  int32: { min: -(2 ** 31), max: 2 ** 31 - 1 },
  int64: { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
};

/** Follows `#/components/...` refs until a schema object remains. */
export function resolveSchema(spec: OpenApiDocument, schema: Json | undefined): JsonObject {
  let current = schema;
  for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${current['$ref']}`);
    let node: Json | undefined = spec;
    for (const segment of current['$ref'].replace(/^#\//, '').split('/')) node = isObject(node) ? node[segment] : undefined;
    current = node;
  }
  if (!isObject(current)) throw new Error(`not a schema: ${JSON.stringify(schema)}`);
  for (const keyword of Object.keys(current)) {
    if (!KNOWN_KEYWORDS.has(keyword))
      throw new Error(`the fuzzer does not know the schema keyword ${keyword}; teach test/robustness/helpers/schema-arbitrary.ts`);
  }
  const format = current['format'];
  if (format !== undefined && !(current['type'] === 'integer' && typeof format === 'string' && format in INTEGER_FORMATS))
    throw new Error(
      `the fuzzer does not know the format ${JSON.stringify(format)} of ${JSON.stringify(current['type'])}; teach test/robustness/helpers/schema-arbitrary.ts`,
    );
  return current;
}

const JSON_TYPES = ['string', 'integer', 'number', 'boolean', 'null', 'array', 'object'] as const;

/** Any JSON value of one of the JSON Schema types. */
function valueOfType(type: (typeof JSON_TYPES)[number]): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return fc.string({ maxLength: 30 });
    case 'integer':
      return fc.integer();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Number.isInteger(value));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  }
}

/** Values the schema accepts. */
export function validValue(spec: OpenApiDocument, raw: Json | undefined): fc.Arbitrary<unknown> {
  const schema = resolveSchema(spec, raw);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as Json[]));
  switch (schema['type']) {
    case 'string': {
      const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
      const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : 64;
      const base =
        typeof schema['pattern'] === 'string'
          ? fc.stringMatching(new RegExp(schema['pattern']))
          : fc.string({ minLength: min, maxLength: Math.min(max, min + 64) });
      return base.filter((text) => text.length >= min && text.length <= max);
    }
    case 'integer': {
      const range = INTEGER_FORMATS[String(schema['format'])] ?? { min: -1e9, max: 1e9 };
      return fc.integer({ min: Math.max(num(schema['minimum'], -1e9), range.min), max: Math.min(num(schema['maximum'], 1e9), range.max) });
    }
    case 'object': {
      const properties = isObject(schema['properties']) ? schema['properties'] : {};
      const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
      const fields = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(spec, property)]));
      return fc.record(fields, { requiredKeys: required });
    }
    default:
      throw new Error(`the fuzzer cannot make values of ${JSON.stringify(schema)}`);
  }
}

/** Values the schema rejects, each labelled with how it breaks it. */
export function invalidValue(spec: OpenApiDocument, raw: Json | undefined): fc.Arbitrary<unknown> {
  const schema = resolveSchema(spec, raw);
  const type = schema['type'];
  const wrongTypes = JSON_TYPES.filter((other) => other !== type && !(type === 'number' && other === 'integer')).map(valueOfType);
  const breaking: Array<fc.Arbitrary<unknown>> = [...wrongTypes];
  if (Array.isArray(schema['enum'])) {
    const allowed = new Set(schema['enum'] as Json[]);
    const cased = (schema['enum'] as Json[])
      .filter((value): value is string => typeof value === 'string')
      .flatMap((value) => [value.toUpperCase(), ` ${value}`, `${value}\u0000`]);
    breaking.push(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...cased, '')).filter((value) => !allowed.has(value)));
  }
  if (type === 'string') {
    const min = num(schema['minLength'], 0);
    const max = num(schema['maxLength'], Number.POSITIVE_INFINITY);
    if (Number.isFinite(max)) breaking.push(fc.integer({ min: max + 1, max: max + 40 }).map((length) => 'a'.repeat(length)));
    if (min > 0) breaking.push(fc.constant(''));
    if (typeof schema['pattern'] === 'string') {
      const pattern = new RegExp(schema['pattern']);
      breaking.push(fc.string({ minLength: Math.max(min, 1), maxLength: 40, unit: 'grapheme' }).filter((text) => !pattern.test(text) && text.length <= max));
    }
  }
  if (type === 'integer') {
    if (typeof schema['minimum'] === 'number') breaking.push(fc.integer({ min: -1e6, max: schema['minimum'] - 1 }));
    if (typeof schema['maximum'] === 'number') breaking.push(fc.integer({ min: schema['maximum'] + 1, max: schema['maximum'] + 1e6 }));
    breaking.push(fc.integer({ min: num(schema['minimum'], 0), max: num(schema['maximum'], 100) }).map((value) => value + 0.5));
  }
  if (type === 'object') {
    const properties = isObject(schema['properties']) ? schema['properties'] : {};
    const names = Object.keys(properties);
    if (schema['additionalProperties'] === false) {
      // An otherwise valid object plus a field the schema does not have, including the names that pollute prototypes.
      const unknownName = fc
        .oneof(
          fc.constantFrom(
            '__proto__',
            'constructor',
            'prototype',
            'toString',
            'hasOwnProperty',
            ...names.map((name) => name.toUpperCase()),
            ...names.map((name) => `${name} `),
          ),
          fc.string({ minLength: 1, maxLength: 12 }),
        )
        .filter((name) => !names.includes(name));
      breaking.push(
        fc.tuple(validValue(spec, schema), unknownName, fc.jsonValue({ maxDepth: 2 })).map(([valid, name, value]) => {
          const result = { ...(valid as object) } as Record<string, unknown>;
          Object.defineProperty(result, name, { value, enumerable: true, configurable: true, writable: true });
          return result;
        }),
      );
    }
    // An otherwise valid object with one field broken.
    for (const name of names) {
      breaking.push(fc.tuple(validValue(spec, schema), invalidValue(spec, properties[name])).map(([valid, bad]) => ({ ...(valid as object), [name]: bad })));
    }
  }
  return fc.oneof(...breaking);
}

function num(value: Json | undefined, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

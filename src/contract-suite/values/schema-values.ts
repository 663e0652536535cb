import { randomInt, randomUUID } from 'node:crypto';
import type { Ajv2020, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { compileSpecSchema, createSpecAjv } from '../../contract/schemas.js';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { type Pick, seeded, stringMatching } from './pattern.js';
import { resolveSchema } from './schema-refs.js';

/** Most values a field is tried with, so a field with a long enum does not flood a live service. */
const MAX_VARIANTS = 4;
/** Keywords that say nothing about which values are valid. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'default', '$comment']);
/** Fixed dates, so generated values (and the requests that carry them) are the same on every run. */
const DATE_TIME = '2026-01-01T00:00:00.000Z';

/**
 * Valid values for the spec's schemas: the spec's own examples and defaults
 * first, then generated ones. Every value it hands out has been validated against
 * the schema with Ajv, so a positive case never sends a value the contract
 * forbids, however rough the generator is.
 */
export class SchemaValues {
  readonly #spec: OpenApiDocument;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();

  /** `ajv`: more Ajv options (a foreign spec's schemas are read without strict mode). */
  constructor(spec: OpenApiDocument, ajv: Options = {}) {
    this.#spec = spec;
    this.#ajv = createSpecAjv(spec, ajv);
  }

  /** Whether the value is valid; false too when the schema cannot be compiled (a foreign spec's), so no value is handed out for it. */
  isValid(schema: Json, value: Json): boolean {
    const key = JSON.stringify(schema);
    let validate = this.#validators.get(key);
    if (!validate) {
      try {
        validate = compileSpecSchema(this.#ajv, schema);
      } catch {
        validate = Object.assign(() => false, { errors: null }) as unknown as ValidateFunction;
      }
      this.#validators.set(key, validate);
    }
    return validate(structuredClone(value));
  }

  /** One valid value: the given example, the schema's example or default, else a generated one. */
  one(schema: Json, example?: Json): Json | undefined {
    return this.#firstValid(schema, [example, ...this.#documented(schema), generate(this.#spec, schema, seeded(1))]);
  }

  /** The smallest valid value: generated from the required parts only, else the documented ones. */
  minimal(schema: Json): Json | undefined {
    return this.#firstValid(schema, [generate(this.#spec, schema, seeded(1)), ...this.#documented(schema)]);
  }

  /**
   * Distinct valid values that exercise a field: every enum value, both booleans,
   * a number's bounds and default, else the examples and a generated value.
   */
  variants(schema: Json, example?: Json): Json[] {
    const resolved = resolveSchema(this.#spec, schema);
    let candidates: Array<Json | undefined>;
    if (Array.isArray(resolved['enum'])) candidates = resolved['enum'];
    else if (resolved['type'] === 'boolean') candidates = [true, false];
    else if (resolved['type'] === 'integer' || resolved['type'] === 'number') {
      candidates = [resolved['minimum'], resolved['maximum'], resolved['default'], example, generate(this.#spec, schema, seeded(1))];
    } else candidates = [example, ...this.#documented(schema), generate(this.#spec, schema, seeded(1)), generate(this.#spec, schema, seeded(2))];
    const seen = new Set<string>();
    const values: Json[] = [];
    for (const candidate of candidates) {
      if (candidate === undefined || seen.has(JSON.stringify(candidate)) || !this.isValid(schema, candidate)) continue;
      seen.add(JSON.stringify(candidate));
      values.push(candidate);
    }
    return values.slice(0, MAX_VARIANTS);
  }

  /**
   * A value the schema accepts but no server can have handed out: random where an
   * identifier has room for randomness (a pattern, a UUID), so it cannot collide
   * with a real one. Undefined when the schema leaves no such room.
   */
  unguessable(schema: Json): Json | undefined {
    const resolved = resolveSchema(this.#spec, schema);
    const candidates: Json[] = [];
    if (resolved['format'] === 'uuid') candidates.push(randomUUID());
    if (resolved['type'] === 'integer') candidates.push(typeof resolved['maximum'] === 'number' ? resolved['maximum'] : Number.MAX_SAFE_INTEGER);
    if (resolved['type'] === 'string' && resolved['enum'] === undefined) {
      const random: Pick = (bound) => randomInt(bound);
      for (let attempt = 0; attempt < 5; attempt++) {
        const value = generate(this.#spec, schema, random);
        if (value !== undefined) candidates.push(value);
      }
    }
    return candidates.find((candidate) => this.isValid(schema, candidate));
  }

  #documented(schema: Json): Array<Json | undefined> {
    const resolved = resolveSchema(this.#spec, schema);
    const examples = Array.isArray(resolved['examples']) ? resolved['examples'] : [];
    return [resolved['example'], ...examples, resolved['default'], isObject(schema) ? schema['default'] : undefined];
  }

  #firstValid(schema: Json, candidates: Array<Json | undefined>): Json | undefined {
    return candidates.find((candidate): candidate is Json => candidate !== undefined && this.isValid(schema, candidate));
  }
}

/** A value built from the schema's keywords; rough on purpose, because `SchemaValues` validates it. */
export function generate(spec: OpenApiDocument, schema: Json, pick: Pick, depth = 0): Json | undefined {
  if (depth > 8) return undefined;
  const resolved = resolveSchema(spec, schema);
  if (resolved['const'] !== undefined) return resolved['const'];
  if (Array.isArray(resolved['enum'])) return resolved['enum'][pick(resolved['enum'].length)];
  for (const keyword of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = resolved[keyword];
    if (Array.isArray(branches)) {
      const value = branches.map((branch) => generate(spec, branch, pick, depth + 1)).find((candidate) => candidate !== undefined && candidate !== null);
      if (value !== undefined) return value;
    }
  }
  const types = Array.isArray(resolved['type']) ? resolved['type'] : [resolved['type']];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  switch (type) {
    case 'string':
      return generateString(resolved, pick);
    case 'integer':
    case 'number':
      return generateNumber(resolved);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      // One item at least where the schema allows it: an empty array in a query string is no value at all.
      const count = Math.max(typeof resolved['minItems'] === 'number' ? resolved['minItems'] : 0, resolved['maxItems'] === 0 ? 0 : 1);
      const items = Array.from({ length: count }, () => generate(spec, resolved['items'] ?? {}, pick, depth + 1));
      return items.every((item) => item !== undefined) ? (items as Json[]) : undefined;
    }
    case 'object':
      return generateObject(spec, resolved, pick, depth);
    default:
      // A schema that says nothing of its type (`{}`) takes any value; one with properties is an object.
      if (isObject(resolved['properties']) || Array.isArray(resolved['required'])) return generateObject(spec, resolved, pick, depth);
      return Object.keys(resolved).every((keyword) => ANNOTATIONS.has(keyword)) ? 'contract-suite-value' : undefined;
  }
}

function generateString(schema: JsonObject, pick: Pick): string | undefined {
  switch (schema['format']) {
    case 'date-time':
      return DATE_TIME;
    case 'date':
      return DATE_TIME.slice(0, 10);
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000'.replace(/0/g, () => '0123456789abcdef'.charAt(pick(16)));
    case 'email':
      return 'contract-suite@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/contract-suite';
  }
  if (typeof schema['pattern'] === 'string') return stringMatching(schema['pattern'], pick);
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 1;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Math.max(min, 24);
  const base = 'contract-suite-value'.padEnd(min, 'x');
  return base.slice(0, Math.max(min, Math.min(max, base.length)));
}

function generateNumber(schema: JsonObject): number {
  const step = typeof schema['multipleOf'] === 'number' ? schema['multipleOf'] : 1;
  const low =
    typeof schema['minimum'] === 'number' ? schema['minimum'] : typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] + step : undefined;
  const high =
    typeof schema['maximum'] === 'number' ? schema['maximum'] : typeof schema['exclusiveMaximum'] === 'number' ? schema['exclusiveMaximum'] - step : undefined;
  if (low !== undefined) return Math.ceil(low / step) * step;
  if (high !== undefined) return Math.min(high, step);
  return step;
}

function generateObject(spec: OpenApiDocument, schema: JsonObject, pick: Pick, depth: number): Json | undefined {
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'].map(String) : [];
  const value: JsonObject = {};
  for (const name of required) {
    const field = generate(spec, properties[name] ?? {}, pick, depth + 1);
    if (field === undefined) return undefined;
    value[name] = field;
  }
  return value;
}

import { randomInt, randomUUID } from 'node:crypto';
import type { Ajv2020, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { compileSpecSchema, createSpecAjv } from '../../contract/schemas.js';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { type Branch, branchesOf, mergeAllOf } from './composed.js';
import { type MatchOptions, type Pick, seeded, stringMatching } from './pattern.js';
import { requestView } from './request-view.js';
import { resolveSchema } from './schema-refs.js';

/** Most values a field is tried with, so a field with a long enum does not flood a live service. */
const MAX_VARIANTS = 4;
/** Random draws `unguessable` makes at most, the first two at the pattern's widest. */
const UNGUESSABLE_DRAWS = 24;
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

  /**
   * Whether the value is valid in a request; false too when the schema cannot be compiled (a foreign spec's),
   * so no value is handed out for it. As a request: read-only properties are not required there
   * (`request-view.ts`). A `oneOf` stays strict, discriminator or not (OpenAPI: a discriminator does not change
   * the outcome of validation): a value two alternatives both accept is invalid, as Prism and Ajv say.
   */
  isValid(schema: Json, value: Json): boolean {
    const key = JSON.stringify(schema);
    let validate = this.#validators.get(key);
    if (!validate) {
      try {
        validate = compileSpecSchema(this.#ajv, requestView(this.#spec, schema));
      } catch {
        validate = Object.assign(() => false, { errors: null }) as unknown as ValidateFunction;
      }
      this.#validators.set(key, validate);
    }
    return validate(structuredClone(value));
  }

  /** One valid value: the given example, the schema's example or default, else a generated one. */
  one(schema: Json, example?: Json): Json | undefined {
    return this.#firstValid(schema, [example, ...this.#documented(schema), ...this.#generated(schema, 1)]);
  }

  /** The smallest valid value: generated from the required parts only, else the documented ones. */
  minimal(schema: Json): Json | undefined {
    return this.#firstValid(schema, [...this.#generated(schema, 1), ...this.#documented(schema)]);
  }

  /**
   * A valid value with every optional property set too, at any depth (read-only ones never): what a create
   * sends so that a read after it can show each field kept. Else the documented or minimal value.
   */
  full(schema: Json): Json | undefined {
    return this.#firstValid(schema, [...this.#generated(schema, 1, { optional: true }), ...this.#documented(schema), ...this.#generated(schema, 1)]);
  }

  /**
   * The smallest valid value of each alternative of a `oneOf`/`anyOf` (its discriminator value set), by the
   * alternative's label; empty for a schema without alternatives, or when none of them can be generated.
   */
  branches(schema: Json): Array<{ label: string; value: Json }> {
    return branchesOf(this.#spec, schema).flatMap((branch) => {
      const value = generateBranch(this.#spec, branch, seeded(1), 0, {});
      return value !== undefined && this.isValid(schema, value) ? [{ label: branch.label, value }] : [];
    });
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
      // Both bounds, the default, and one value inside the domain (a fault inside it, not at its edges, shows there).
      const { low, high } = numericBounds(resolved);
      candidates = [low, high, resolved['default'], insideValue(resolved), example, generate(this.#spec, schema, seeded(1))];
    } else candidates = [example, ...this.#documented(schema), ...this.#generated(schema, 1), ...this.#generated(schema, 2)];
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
    const found = candidates.find((candidate) => this.isValid(schema, candidate));
    if (found !== undefined || resolved['type'] !== 'string' || resolved['enum'] !== undefined) return found;
    const random: Pick = (bound) => randomInt(bound);
    // At its widest first (every quantifier at its most), then as drawn, for a `maxLength` the widest breaks:
    // enough draws that one inside it is all but certain when half of them are.
    for (let attempt = 0; attempt < UNGUESSABLE_DRAWS; attempt++) {
      const value = generate(this.#spec, schema, random, 0, { widest: attempt < 2 });
      if (value !== undefined && this.isValid(schema, value)) return value;
    }
    return undefined;
  }

  /** Generated candidates: one from the schema, then one per alternative of a `oneOf` (the first may match two, which `oneOf` forbids). */
  #generated(schema: Json, seed: number, options: GenerateOptions = {}): Array<Json | undefined> {
    const branches = branchesOf(this.#spec, schema).map((branch) => generateBranch(this.#spec, branch, seeded(seed), 0, options));
    return [generate(this.#spec, schema, seeded(seed), 0, options), ...branches];
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

/**
 * How a value is generated: `optional` sets every optional property too, at any depth (else only the required ones);
 * `widest` repeats each pattern quantifier as often as it may (see `MatchOptions`).
 */
export interface GenerateOptions extends MatchOptions {
  optional?: boolean;
}

/** A value built from the schema's keywords; rough on purpose, because `SchemaValues` validates it. */
export function generate(spec: OpenApiDocument, schema: Json, pick: Pick, depth = 0, options: GenerateOptions = {}): Json | undefined {
  if (depth > 8) return undefined;
  // Every branch of an `allOf` at once (Galaxy's `createUser` was sent `{}` when only the first was read).
  const resolved = mergeAllOf(spec, schema);
  if (resolved['const'] !== undefined) return resolved['const'];
  if (Array.isArray(resolved['enum'])) return resolved['enum'][pick(resolved['enum'].length)];
  const branches = branchesOf(spec, resolved);
  if (branches.length > 0) {
    for (const branch of branches) {
      const value = generateBranch(spec, branch, pick, depth + 1, options);
      if (value !== undefined && value !== null) return value;
    }
    return undefined;
  }
  const types = Array.isArray(resolved['type']) ? resolved['type'] : [resolved['type']];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  switch (type) {
    case 'string':
      return generateString(resolved, pick, options);
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
      const items = Array.from({ length: count }, () => generate(spec, resolved['items'] ?? {}, pick, depth + 1, options));
      return items.every((item) => item !== undefined) ? (items as Json[]) : undefined;
    }
    case 'object':
      return generateObject(spec, resolved, pick, depth, options);
    default:
      // A schema that says nothing of its type (`{}`) takes any value; one with properties is an object.
      if (isObject(resolved['properties']) || Array.isArray(resolved['required'])) return generateObject(spec, resolved, pick, depth, options);
      return Object.keys(resolved).every((keyword) => ANNOTATIONS.has(keyword)) ? 'contract-suite-value' : undefined;
  }
}

function generateString(schema: JsonObject, pick: Pick, options: MatchOptions): string | undefined {
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
  if (typeof schema['pattern'] === 'string') return stringMatching(schema['pattern'], pick, options);
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 1;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Math.max(min, 24);
  const base = 'contract-suite-value'.padEnd(min, 'x');
  return base.slice(0, Math.max(min, Math.min(max, base.length)));
}

function generateNumber(schema: JsonObject): number {
  const step = stepOf(schema);
  const { low, high } = numericBounds(schema);
  if (low !== undefined) return low;
  if (high !== undefined) return Math.min(high, step);
  return step;
}

function stepOf(schema: JsonObject): number {
  return typeof schema['multipleOf'] === 'number' && schema['multipleOf'] > 0 ? schema['multipleOf'] : 1;
}

/** The lowest and highest valid value of a number, from its inclusive or (3.1's numeric) exclusive bounds, on its `multipleOf` grid. */
export function numericBounds(schema: JsonObject): { low?: number; high?: number } {
  const step = stepOf(schema);
  const low =
    typeof schema['minimum'] === 'number' ? schema['minimum'] : typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] + step : undefined;
  const high =
    typeof schema['maximum'] === 'number' ? schema['maximum'] : typeof schema['exclusiveMaximum'] === 'number' ? schema['exclusiveMaximum'] - step : undefined;
  return {
    ...(low !== undefined && { low: Math.ceil(low / step) * step }),
    ...(high !== undefined && { high: Math.floor(high / step) * step }),
  };
}

/** A value strictly inside a bounded domain (its middle, on the grid), when there is room between the bounds. */
export function insideValue(schema: JsonObject): number | undefined {
  const { low, high } = numericBounds(schema);
  if (low === undefined || high === undefined) return undefined;
  const step = stepOf(schema);
  const middle = Math.round((low + high) / 2 / step) * step;
  return middle > low && middle < high ? middle : undefined;
}

function generateObject(spec: OpenApiDocument, schema: JsonObject, pick: Pick, depth: number, options: GenerateOptions): Json | undefined {
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'].map(String) : [];
  const value: JsonObject = {};
  // A read-only property is the server's to set: never in a request, even where the schema requires it (in answers).
  const writable = (name: string) => resolveSchema(spec, properties[name])['readOnly'] !== true;
  for (const name of required.filter(writable)) {
    const field = generate(spec, properties[name] ?? {}, pick, depth + 1, options);
    if (field === undefined) return undefined;
    value[name] = field;
  }
  if (!options.optional) return value;
  // Every optional field too (a create that keeps them all can be read back field by field); one that cannot be generated is left out.
  for (const name of Object.keys(properties).filter(writable)) {
    if (name in value) continue;
    const field = generate(spec, properties[name] ?? {}, pick, depth + 1, options);
    if (field !== undefined) value[name] = field;
  }
  return value;
}

/** A value of one alternative, carrying the discriminator value that names it. */
function generateBranch(spec: OpenApiDocument, branch: Branch, pick: Pick, depth: number, options: GenerateOptions): Json | undefined {
  const value = generate(spec, branch.schema, pick, depth, options);
  if (branch.discriminator === undefined || !isObject(value)) return value;
  return { ...value, [branch.discriminator.propertyName]: branch.discriminator.value };
}

import fc from 'fast-check';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import type { Location } from '../case.js';
import { branchesOf, mergeAllOf } from '../values/composed.js';
import { resolveSchema } from '../values/schema-refs.js';
import type { SchemaValues } from '../values/schema-values.js';

/** Bounds that keep generated requests small: a live service gets requests, not stress. */
const MAX_STRING = 40;
const MAX_ITEMS = 4;
const MAX_DEPTH = 6;
/** A domain at most this large is walked value by value (see `smallDomain`): `limit` 1 to 100 is, a 0 to 1000 offset is not. */
export const SMALL_DOMAIN = 100;

/**
 * A fast-check arbitrary of values valid against `schema`. The arbitrary is
 * built from the schema's keywords and may be rough (`allOf`, `not`, formats it
 * does not know), so each value is checked with Ajv and replaced by a known
 * valid one (`fallback`) when it fails: a "valid" request never carries a value
 * the contract forbids, and generation always ends.
 */
export function validValue(spec: OpenApiDocument, values: SchemaValues, schema: Json, location: Location, fallback?: Json): fc.Arbitrary<Json> | undefined {
  const rough = roughValue(spec, schema, location, 0);
  // Never `filter` until valid: a schema the rough generator cannot meet would loop forever. A sample finds a fallback instead.
  const known = fallback ?? values.one(schema) ?? fc.sample(rough, { numRuns: 50, seed: 1 }).find((value) => values.isValid(schema, value));
  if (known === undefined) return undefined;
  return rough.map((value) => (values.isValid(schema, value) ? value : known));
}

function roughValue(spec: OpenApiDocument, schema: Json, location: Location, depth: number): fc.Arbitrary<Json> {
  // Every branch of an `allOf` at once (`values/composed.ts`); Ajv decides whether the result is valid.
  const resolved = mergeAllOf(spec, schema);
  if (depth > MAX_DEPTH) return fc.constant(null);
  if (resolved['const'] !== undefined) return fc.constant(resolved['const']);
  if (Array.isArray(resolved['enum']) && resolved['enum'].length > 0) return fc.constantFrom(...resolved['enum']);
  // An alternative of a `oneOf`/`anyOf` at a time, carrying the discriminator value that names it.
  const branches = branchesOf(spec, resolved);
  if (branches.length > 0)
    return fc.oneof(
      ...branches.map((branch) =>
        roughValue(spec, branch.schema, location, depth + 1).map((value): Json => {
          const named = branch.discriminator;
          return named !== undefined && isObject(value) ? { ...value, [named.propertyName]: named.value } : value;
        }),
      ),
    );
  const types = Array.isArray(resolved['type']) ? resolved['type'].map(String) : typeof resolved['type'] === 'string' ? [resolved['type']] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => roughValue(spec, { ...resolved, type }, location, depth + 1)));
  const type = types[0] ?? (isObject(resolved['properties']) ? 'object' : undefined);
  switch (type) {
    case 'string':
      return stringValue(resolved, location);
    case 'integer':
      return fc.integer(integerBounds(resolved)).map((value) => value * step(resolved));
    case 'number': {
      const low = numberBound(resolved, 'minimum', 'exclusiveMinimum');
      const high = numberBound(resolved, 'maximum', 'exclusiveMaximum');
      return fc.double({ noNaN: true, noDefaultInfinity: true, ...(low !== undefined && { min: low }), ...(high !== undefined && { max: high }) });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = roughValue(spec, resolved['items'] ?? {}, location, depth + 1);
      // Outside the body an empty array has no wire form of its own (`tags=` reads as one empty value): at least one item there.
      const minLength = Math.max(typeof resolved['minItems'] === 'number' ? resolved['minItems'] : 0, location === 'body' ? 0 : 1);
      const maxLength = Math.max(minLength, Math.min(typeof resolved['maxItems'] === 'number' ? resolved['maxItems'] : MAX_ITEMS, MAX_ITEMS));
      return resolved['uniqueItems'] === true
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return objectValue(spec, resolved, location, depth);
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
}

function objectValue(spec: OpenApiDocument, schema: JsonObject, location: Location, depth: number): fc.Arbitrary<Json> {
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'].map(String) : [];
  const model: Record<string, fc.Arbitrary<Json>> = {};
  for (const [name, property] of Object.entries(properties)) {
    // A read-only property is the server's to set (OpenAPI 3.1 §4.8.24.1): a request leaves it out.
    if (resolveSchema(spec, property)['readOnly'] === true) continue;
    model[name] = roughValue(spec, property, location, depth + 1);
  }
  // A required property the schema does not describe gets some value; a read-only one stays out even where required (in answers only).
  const readOnly = (name: string) => resolveSchema(spec, properties[name])['readOnly'] === true;
  for (const name of required) if (!readOnly(name)) model[name] ??= fc.constant('x');
  return fc.record(model, { requiredKeys: required.filter((name) => name in model) }) as fc.Arbitrary<Json>;
}

function stringValue(schema: JsonObject, location: Location): fc.Arbitrary<Json> {
  const minLength = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const maxLength = Math.max(minLength, Math.min(typeof schema['maxLength'] === 'number' ? schema['maxLength'] : MAX_STRING, MAX_STRING));
  switch (schema['format']) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.webUrl();
  }
  if (typeof schema['pattern'] === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema['pattern'], 'u'), { maxLength });
    } catch {
      // A pattern fast-check cannot read (a feature it lacks): plain strings, which Ajv then sorts out.
    }
  }
  // Text that fits anywhere on the wire: a header or path value cannot carry every character a JSON string can.
  const unit = location === 'body' ? 'grapheme' : 'grapheme-ascii';
  return fc.string({ unit, minLength, maxLength });
}

function step(schema: JsonObject): number {
  return typeof schema['multipleOf'] === 'number' && Number.isInteger(schema['multipleOf']) && schema['multipleOf'] > 0 ? schema['multipleOf'] : 1;
}

function integerBounds(schema: JsonObject): { min: number; max: number } {
  const by = step(schema);
  const low = numberBound(schema, 'minimum', 'exclusiveMinimum', 1) ?? -1_000_000;
  const high = numberBound(schema, 'maximum', 'exclusiveMaximum', -1) ?? 1_000_000;
  return { min: Math.ceil(low / by), max: Math.max(Math.ceil(low / by), Math.floor(high / by)) };
}

/** A bound of a number, from its inclusive keyword or (OpenAPI 3.1's numeric) exclusive one, moved inside by `nudge`. */
function numberBound(schema: JsonObject, inclusive: string, exclusive: string, nudge = 0): number | undefined {
  if (typeof schema[inclusive] === 'number') return schema[inclusive];
  if (typeof schema[exclusive] === 'number') return schema[exclusive] + nudge;
  return undefined;
}

/**
 * Every value of a small finite domain (an enum, a boolean, an integer range of
 * at most `SMALL_DOMAIN` values), its edges first (the bounds, the default),
 * then the rest in an order drawn from `seed`: a run of at least that many
 * examples tries every value, so a fault at one value (a 500 at `limit=37`) cannot hide.
 */
export function smallDomain(spec: OpenApiDocument, schema: Json, seed: number): Json[] | undefined {
  const resolved = resolveSchema(spec, schema);
  if (Array.isArray(resolved['enum'])) return resolved['enum'].length <= SMALL_DOMAIN ? [...resolved['enum']] : undefined;
  if (resolved['type'] === 'boolean') return [true, false];
  if (resolved['type'] !== 'integer') return undefined;
  const { min, max } = integerBounds(resolved);
  if (max - min + 1 > SMALL_DOMAIN) return undefined;
  const by = step(resolved);
  const all = Array.from({ length: max - min + 1 }, (_, index) => (min + index) * by);
  const edges = [all[0], all.at(-1), resolved['default'], all[1], all.at(-2)].filter(
    (value, index, list): value is number => typeof value === 'number' && all.includes(value) && list.indexOf(value) === index,
  );
  const rest = all.filter((value) => !edges.includes(value));
  return [...edges, ...shuffle(rest, seed)];
}

/** A seeded Fisher–Yates shuffle (mulberry32): the same seed gives the same order, so a run can be repeated. */
export function shuffle<T>(list: T[], seed: number): T[] {
  const out = [...list];
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  for (let index = out.length - 1; index > 0; index--) {
    const other = Math.floor(next() * (index + 1));
    [out[index], out[other]] = [out[other] as T, out[index] as T];
  }
  return out;
}

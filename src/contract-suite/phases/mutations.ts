import fc from 'fast-check';
import { isJsonMediaType } from '../../contract/media-types.js';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import type { Family, Location, RequestInput, RequestOverrides } from '../case.js';
import type { OperationFacts } from '../operation-facts.js';
import { mergeAllOf } from '../values/composed.js';
import { resolveSchema } from '../values/schema-refs.js';
import type { SchemaValues } from '../values/schema-values.js';
import { requestMediaType } from '../wire/body.js';

/** How deep into a body the mutations reach: nested fields are where hand-written validation forgets. */
const MAX_DEPTH = 3;

/** One way to make a valid request invalid, with the value that does it. */
export interface Mutation {
  /** The suite's name for the fault (a known difference refers to it). */
  family: Family;
  location: Location;
  /** Where the fault lies: `/limit`, `/filter/tags`, or `` for the body as a whole. */
  pointer: string;
  /** The bad value; `undefined` leaves the field out. */
  value?: Json;
  /** Raw body text, sent as is (an empty or malformed body). */
  raw?: string;
  title: string;
}

/** A field a mutation can break: a parameter, or a property of the body at any depth. */
interface Target {
  location: Location;
  path: string[];
  schema: JsonObject;
  required: boolean;
}

/**
 * Every kind of invalid request the spec lets the suite build for one
 * operation, as one fast-check arbitrary: each draws a field (top-level or
 * nested), a constraint it breaks and a value that breaks it. Among them the
 * values a lenient server coerces (`{"limit":"5"}`, `"true"`, `"ASC"`), so a
 * server that accepts them is found. Undefined when the operation takes nothing
 * that can be broken.
 */
export function mutationsOf(spec: OpenApiDocument, values: SchemaValues, facts: OperationFacts): fc.Arbitrary<Mutation> | undefined {
  const options: fc.Arbitrary<Mutation>[] = [];
  for (const target of targetsOf(spec, facts)) options.push(...fieldMutations(values, target));
  if (facts.body) {
    const whole = (family: Family, raw: string, title: string): Mutation => ({ family, location: 'body', pointer: '', raw, title });
    options.push(
      fc.constantFrom(
        whole('malformed-json', '', 'an empty body'),
        whole('malformed-json', '{', 'malformed JSON'),
        ...(resolveSchema(spec, facts.body.schema)['type'] === 'object'
          ? [
              whole('wrong-type', '[]', 'an array for the body'),
              whole('wrong-type', '"text"', 'a string for the body'),
              whole('wrong-type', 'null', 'null for the body'),
            ]
          : []),
      ),
    );
  }
  return options.length === 0 ? undefined : fc.oneof(...options);
}

/** Applies a mutation to a valid input. */
export function applyMutation(input: RequestInput, mutation: Mutation): { input: RequestInput; overrides: RequestOverrides } {
  if (mutation.raw !== undefined) return { input, overrides: { body: mutation.raw } };
  const next: RequestInput = structuredClone(input);
  const path = mutation.pointer.split('/').slice(1).map(unescapePointer);
  if (mutation.location === 'body') {
    next.body = setAt(isObject(next.body) ? next.body : {}, path, mutation.value);
    return { input: next, overrides: {} };
  }
  if (mutation.location === 'cookie') next.cookie ??= {};
  const part = (mutation.location === 'header' ? next.headers : next[mutation.location]) ?? {};
  const name = path[0] ?? '';
  if (mutation.value === undefined) delete part[name];
  else part[name] = mutation.value;
  return { input: next, overrides: {} };
}

function targetsOf(spec: OpenApiDocument, facts: OperationFacts): Target[] {
  const targets: Target[] = [];
  // Path parameters have their own families (malformed and unknown ids); a continuation token (a cursor) is opaque.
  // A form body carries text only: a value of another JSON type is not representable there, so its fields are not mutated.
  const mediaType = requestMediaType(facts.operation);
  const textBody = mediaType !== undefined && !isJsonMediaType(mediaType);
  for (const field of facts.fields) {
    if (field.location === 'path' || facts.continuations.has(field.name)) continue;
    if (field.location === 'body' && textBody) continue;
    targets.push({ location: field.location, path: [field.name], schema: field.resolved, required: field.required });
    if (field.location === 'body') nested(spec, field.resolved, [field.name], targets, 1);
  }
  return targets;
}

function nested(spec: OpenApiDocument, schema: JsonObject, path: string[], into: Target[], depth: number): void {
  if (depth >= MAX_DEPTH || !isObject(schema['properties'])) return;
  const required = Array.isArray(schema['required']) ? schema['required'].map(String) : [];
  for (const [name, property] of Object.entries(schema['properties'])) {
    // A nested field's own `allOf` merged, so its bounds are all broken (`values/composed.ts`).
    const resolved = mergeAllOf(spec, property);
    if (resolved['readOnly'] === true) continue;
    into.push({ location: 'body', path: [...path, name], schema: resolved, required: required.includes(name) });
    nested(spec, resolved, [...path, name], into, depth + 1);
  }
}

function fieldMutations(values: SchemaValues, target: Target): fc.Arbitrary<Mutation>[] {
  const { schema, location } = target;
  const pointer = `/${target.path.map(escapePointer).join('/')}`;
  const where = `${location} ${pointer}`;
  const mutation =
    (family: Family, title: string) =>
    (value: Json | undefined): Mutation => ({
      family,
      location,
      pointer,
      ...(value !== undefined && { value }),
      title: `${title} at ${where}${value === undefined ? '' : `: ${JSON.stringify(value)}`}`,
    });
  const out: fc.Arbitrary<Mutation>[] = [];
  const type = Array.isArray(schema['type']) ? undefined : schema['type'];
  const body = location === 'body';

  const wrong = wrongTypes(type, body, schema);
  if (wrong) out.push(wrong.map(mutation('wrong-type', `wrong type (not ${String(type)})`)));
  if (Array.isArray(schema['enum'])) {
    const allowed = new Set(schema['enum'].map((value) => JSON.stringify(value)));
    const strings = schema['enum'].filter((value): value is string => typeof value === 'string');
    // Another case of an allowed value ("ASC") is what a lenient server lets through.
    const near = [...strings.map((value) => value.toUpperCase()), ...strings.map((value) => ` ${value}`), 'not-a-value', '', 0, true];
    // Outside the body only non-empty text: an empty parameter value is the too-short family's case (and one Prism drops).
    const outside = near.filter(
      (value) => !allowed.has(JSON.stringify(value)) && (body || (typeof value === 'string' && value !== '' && fitsOnTheWire(value, location))),
    );
    // Candidates chosen before generation: a filter that every draw could fail would never end.
    if (outside.length > 0) out.push(fc.constantFrom(...outside).map(mutation('invalid-enum', 'a value outside the enum')));
  }
  const numeric = type === 'integer' || type === 'number';
  if (numeric && typeof schema['maximum'] === 'number') {
    const max = schema['maximum'];
    out.push(fc.integer({ min: Math.floor(max) + 1, max: Math.floor(max) + 1_000 }).map(mutation('over-maximum', `over the maximum ${max}`)));
  }
  if (numeric && typeof schema['minimum'] === 'number') {
    const min = schema['minimum'];
    out.push(fc.integer({ min: Math.ceil(min) - 1_000, max: Math.ceil(min) - 1 }).map(mutation('under-minimum', `under the minimum ${min}`)));
  }
  if (type === 'string' && typeof schema['maxLength'] === 'number' && schema['maxLength'] < 10_000) {
    const max = schema['maxLength'];
    out.push(fc.integer({ min: max + 1, max: max + 16 }).map((length) => mutation('too-long', `longer than maxLength ${max}`)('a'.repeat(length))));
  }
  if (type === 'string' && typeof schema['minLength'] === 'number' && schema['minLength'] > 0 && location !== 'header') {
    const min = schema['minLength'];
    out.push(fc.integer({ min: 0, max: min - 1 }).map((length) => mutation('too-short', `shorter than minLength ${min}`)('a'.repeat(length))));
  }
  if (type === 'string' && typeof schema['pattern'] === 'string' && schema['enum'] === undefined) {
    const pattern = new RegExp(schema['pattern'], 'u');
    const candidates = [
      'not a valid value!',
      '!',
      '..',
      ' ',
      '\u0000',
      'ä',
      'A',
      '0',
      ...fc.sample(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), { numRuns: 20, seed: 1 }),
    ];
    const mismatched = [...new Set(candidates)].filter((value) => !pattern.test(value) && fitsOnTheWire(value, location));
    if (mismatched.length > 0) out.push(fc.constantFrom(...mismatched).map(mutation('pattern-mismatch', 'not matching its pattern')));
  }
  if (type === 'array' && typeof schema['maxItems'] === 'number' && schema['maxItems'] < 1_000) {
    const item = values.one(schema['items'] ?? {});
    const max = schema['maxItems'];
    if (item !== undefined)
      out.push(fc.integer({ min: max + 1, max: max + 4 }).map((count) => mutation('too-long', `more than maxItems ${max}`)(Array(count).fill(item))));
  }
  if (target.required) out.push(fc.constant(mutation('missing-required', 'a required field left out')(undefined)));
  if (body && type === 'object' && schema['additionalProperties'] === false) {
    const known = new Set(Object.keys(isObject(schema['properties']) ? schema['properties'] : {}));
    out.push(
      fc
        .stringMatching(/^[a-z][a-zA-Z]{0,11}$/)
        .filter((name) => !known.has(name))
        .map((name) => ({ ...mutation('unknown-field', `an unknown field "${name}"`)(undefined), pointer: `${pointer}/${escapePointer(name)}`, value: 1 })),
    );
  }
  return out;
}

/**
 * Values of another type. In a JSON body that includes the text of a valid number
 * (`"5"` for an integer) and of a boolean (`"true"`): a server that coerces them is lenient where the
 * contract is not. In a query, header or path value everything is text, so only non-numbers are wrong for a number.
 */
function wrongTypes(type: Json | undefined, body: boolean, schema: JsonObject): fc.Arbitrary<Json> | undefined {
  const low = typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
  const high = typeof schema['maximum'] === 'number' ? schema['maximum'] : low + 100;
  const numberText = fc.integer({ min: Math.ceil(low), max: Math.max(Math.ceil(low), Math.floor(high)) }).map(String);
  switch (type) {
    case 'integer':
      return body
        ? fc.oneof(
            numberText,
            fc.constantFrom<Json>(true, null, [], {}),
            fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true, min: low, max: high }),
          )
        : fc.constantFrom('ten', '1.5');
    case 'number':
      return body ? fc.oneof(numberText, fc.constantFrom<Json>(true, null, [], {})) : fc.constantFrom('ten', 'NaN-ish');
    case 'string':
      return body ? fc.oneof(fc.integer(), fc.constantFrom<Json>(true, null, [], {})) : undefined;
    case 'boolean':
      return body ? fc.constantFrom<Json>('true', 'false', 0, 1, null) : fc.constantFrom('yes', '2');
    case 'array':
      return body ? fc.constantFrom<Json>('text', 1, {}, null) : undefined;
    case 'object':
      return body ? fc.constantFrom<Json>('text', 1, [], null) : undefined;
    default:
      return undefined;
  }
}

/** Whether a bad value still travels as itself: a header value is printable ASCII without edge spaces (fetch would refuse or trim it), a path segment is not empty or a dot segment. */
function fitsOnTheWire(value: string, location: Location): boolean {
  if (location === 'header') return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value);
  if (location === 'path') return !['', '.', '..'].includes(value);
  return true;
}

function setAt(root: JsonObject, path: string[], value: Json | undefined): JsonObject {
  const [head, ...rest] = path;
  if (head === undefined) return root;
  if (rest.length === 0) {
    if (value === undefined) delete root[head];
    else root[head] = value;
    return root;
  }
  const child = root[head];
  root[head] = setAt(isObject(child) ? child : {}, rest, value);
  return root;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

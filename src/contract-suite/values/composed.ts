import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { componentName, resolveSchema } from './schema-refs.js';

/** How deep merging follows nested `allOf`s: a recursive component stops here rather than loop. */
const MAX_DEPTH = 8;
/** Keywords whose strictest value wins when two branches of an `allOf` both set them. */
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

/**
 * The schema with its `$ref` followed and its `allOf` merged into one schema: the union of the branches'
 * properties (a property two branches declare keeps both schemas, as an `allOf` of its own) and of their
 * `required`, the strictest bound of each kind, the common `type` and `enum` values, closed when any branch
 * is closed. What cannot be merged (two `oneOf`s) keeps the first. Used to generate values and to list a
 * body's fields: every value is still validated against the schema as written, so a rough merge cannot let
 * an invalid value through, it can only fail to find a valid one.
 */
export function mergeAllOf(spec: OpenApiDocument, schema: Json | undefined, depth = 0): JsonObject {
  const resolved = resolveSchema(spec, schema);
  const branches = resolved['allOf'];
  if (!Array.isArray(branches) || depth > MAX_DEPTH) return resolved;
  const { allOf: _, ...own } = resolved;
  let merged: JsonObject = own;
  for (const branch of branches) merged = mergeTwo(merged, mergeAllOf(spec, branch, depth + 1));
  return merged;
}

function mergeTwo(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...b, ...a };
  const properties = { ...(isObject(b['properties']) ? b['properties'] : {}) };
  for (const [name, property] of Object.entries(isObject(a['properties']) ? a['properties'] : {})) {
    const other = properties[name];
    properties[name] = other === undefined || JSON.stringify(other) === JSON.stringify(property) ? property : { allOf: [property, other] };
  }
  if (Object.keys(properties).length > 0) out['properties'] = properties;
  const required = [...new Set([...stringsOf(a['required']), ...stringsOf(b['required'])])];
  if (required.length > 0) out['required'] = required;
  for (const keyword of LOWER_BOUNDS) pickBound(out, keyword, a, b, Math.max);
  for (const keyword of UPPER_BOUNDS) pickBound(out, keyword, a, b, Math.min);
  const types = commonTypes(a['type'], b['type']);
  if (types !== undefined) out['type'] = types;
  if (Array.isArray(a['enum']) && Array.isArray(b['enum'])) {
    const other = new Set(b['enum'].map((value) => JSON.stringify(value)));
    out['enum'] = a['enum'].filter((value) => other.has(JSON.stringify(value)));
  }
  for (const keyword of ['additionalProperties', 'unevaluatedProperties'] as const) if (a[keyword] === false || b[keyword] === false) out[keyword] = false;
  return out;
}

function pickBound(out: JsonObject, keyword: string, a: JsonObject, b: JsonObject, strictest: (x: number, y: number) => number): void {
  const [x, y] = [a[keyword], b[keyword]];
  if (typeof x === 'number' && typeof y === 'number') out[keyword] = strictest(x, y);
}

function commonTypes(a: Json | undefined, b: Json | undefined): Json | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const left = Array.isArray(a) ? a : [a];
  const right = new Set((Array.isArray(b) ? b : [b]).map(String));
  // An integer is a number: `number` and `integer` together mean integer.
  const common = left.map(String).flatMap((type) => {
    if (right.has(type)) return [type];
    if (type === 'number' && right.has('integer')) return ['integer'];
    if (type === 'integer' && right.has('number')) return ['integer'];
    return [];
  });
  return common.length === 1 ? common[0] : common;
}

function stringsOf(value: Json | undefined): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** One alternative of a `oneOf`/`anyOf`: its schema (merged with what the parent says beside the alternatives) and the discriminator value that names it. */
export interface Branch {
  /** What the report calls it: the discriminator value, else the component's name, else its position. */
  label: string;
  schema: JsonObject;
  /** `{ propertyName, value }` when the parent has a discriminator: the property the server dispatches on, and this branch's value of it. */
  discriminator?: { propertyName: string; value: string };
}

/**
 * The alternatives of a schema's `oneOf` (else `anyOf`), each merged with the rest of the parent (its
 * properties and `required` apply to every alternative). Where the parent has a `discriminator`, each
 * alternative takes the value its `mapping` gives it (else, as OpenAPI says, its component's name), so a
 * value generated for it says which alternative it is, as a server that dispatches on it expects.
 * Empty when the schema has no alternatives.
 */
export function branchesOf(spec: OpenApiDocument, schema: Json | undefined): Branch[] {
  const parent = mergeAllOf(spec, schema);
  const alternatives = Array.isArray(parent['oneOf']) ? parent['oneOf'] : Array.isArray(parent['anyOf']) ? parent['anyOf'] : undefined;
  if (alternatives === undefined) return [];
  const { oneOf: _one, anyOf: _any, discriminator, ...rest } = parent;
  const propertyName = isObject(discriminator) && typeof discriminator['propertyName'] === 'string' ? discriminator['propertyName'] : undefined;
  const mapping = isObject(discriminator) && isObject(discriminator['mapping']) ? discriminator['mapping'] : {};
  return alternatives.map((alternative, index): Branch => {
    const component = componentName(alternative);
    const ref = isObject(alternative) ? alternative['$ref'] : undefined;
    // The mapping names a branch by its `$ref` (or by its bare component name, which OpenAPI allows too).
    const mapped = Object.entries(mapping).find(([, target]) => target === ref || (component !== undefined && target === component))?.[0];
    const value = mapped ?? component;
    const merged = mergeAllOf(spec, { allOf: [rest, alternative] });
    const label = (propertyName !== undefined ? value : undefined) ?? component ?? `#${index + 1}`;
    return {
      label,
      schema: merged,
      ...(propertyName !== undefined && value !== undefined && { discriminator: { propertyName, value } }),
    };
  });
}

/** The branch of a composed schema a value belongs to: the one its discriminator names, else undefined (the caller tries each). */
export function branchOfValue(spec: OpenApiDocument, schema: Json | undefined, value: Json): Branch | undefined {
  if (!isObject(value)) return undefined;
  return branchesOf(spec, schema).find(
    (branch) => branch.discriminator !== undefined && value[branch.discriminator.propertyName] === branch.discriminator.value,
  );
}

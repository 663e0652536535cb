/**
 * Reading the shape of a spec's schemas for the stateful mock: the properties of an object (its `allOf`
 * parts merged, as a composed `Pet = NewPet + { id }` declares them), where one schema sits inside another
 * (a `CreatedKey` holds the `ApiKey` at `key`), and which fields hold a moment in time.
 */
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { componentName, resolveSchema } from '../../contract-suite/values/schema-refs.js';

/** Where a value sits in an answer: `[]` the answer itself, `['key']` its `key` property. */
export type Location = readonly string[];

/** Deep enough for an answer that wraps a page that wraps the items; deeper is no shape an API answers with. */
const MAX_DEPTH = 3;

/** The properties an object schema declares, with those of its `allOf` parts (a part's own declaration wins). */
export function objectProperties(spec: OpenApiDocument, schema: Json | undefined, depth = 0): Record<string, Json> {
  const resolved = resolveSchema(spec, schema);
  if (depth > MAX_DEPTH * 2) return {};
  const merged: Record<string, Json> = {};
  for (const part of Array.isArray(resolved['allOf']) ? resolved['allOf'] : []) Object.assign(merged, objectProperties(spec, part, depth + 1));
  return { ...merged, ...(isObject(resolved['properties']) ? resolved['properties'] : {}) };
}

/** The required properties of an object schema, with those of its `allOf` parts. */
export function requiredProperties(spec: OpenApiDocument, schema: Json | undefined, depth = 0): Set<string> {
  const resolved = resolveSchema(spec, schema);
  const required = new Set(Array.isArray(resolved['required']) ? resolved['required'].map(String) : []);
  if (depth > MAX_DEPTH * 2) return required;
  for (const part of Array.isArray(resolved['allOf']) ? resolved['allOf'] : [])
    for (const name of requiredProperties(spec, part, depth + 1)) required.add(name);
  return required;
}

/** Whether two schemas are the same: the same component, or the same inline schema. */
export function sameSchema(spec: OpenApiDocument, a: Json | undefined, b: Json | undefined): boolean {
  const named = componentName(a);
  if (named !== undefined || componentName(b) !== undefined) return named === componentName(b);
  return a !== undefined && JSON.stringify(resolveSchema(spec, a)) === JSON.stringify(resolveSchema(spec, b));
}

/** Where `inner` sits inside `outer` (itself, or a property at some depth); undefined when it is not there. */
export function locate(spec: OpenApiDocument, outer: Json | undefined, inner: Json, depth = 0): Location | undefined {
  if (outer === undefined) return undefined;
  if (sameSchema(spec, outer, inner)) return [];
  if (depth >= MAX_DEPTH) return undefined;
  for (const [name, property] of Object.entries(objectProperties(spec, outer))) {
    const found = locate(spec, property, inner, depth + 1);
    if (found) return [name, ...found];
  }
  return undefined;
}

/** Where an array of `item` sits inside `outer` (the answer itself, or a property such as `keys` or `items`). */
export function locateArrayOf(spec: OpenApiDocument, outer: Json | undefined, item: Json, depth = 0): Location | undefined {
  const resolved = resolveSchema(spec, outer);
  if (resolved['type'] === 'array' && sameSchema(spec, resolved['items'], item)) return [];
  if (depth >= MAX_DEPTH) return undefined;
  for (const [name, property] of Object.entries(objectProperties(spec, outer))) {
    const found = locateArrayOf(spec, property, item, depth + 1);
    if (found) return [name, ...found];
  }
  return undefined;
}

/** The array items' schema of an answer that is a list of one kind of object: the answer's array, or its one array property. */
export function listedItemSchema(spec: OpenApiDocument, outer: Json | undefined): { at: Location; item: Json } | undefined {
  const resolved = resolveSchema(spec, outer);
  if (resolved['type'] === 'array' && resolved['items'] !== undefined) return { at: [], item: resolved['items'] };
  const arrays = Object.entries(objectProperties(spec, outer)).filter(([, property]) => resolveSchema(spec, property)['type'] === 'array');
  const [only] = arrays;
  if (arrays.length !== 1 || !only) return undefined;
  const items = resolveSchema(spec, only[1])['items'];
  return items === undefined ? undefined : { at: [only[0]], item: items };
}

/** The value at a location; undefined when the path leads nowhere. */
export function valueAt(value: Json | undefined, at: Location): Json | undefined {
  let here = value;
  for (const name of at) here = isObject(here) ? here[name] : undefined;
  return here;
}

/** A copy of `value` with `replacement` at the location (the whole value for `[]`). */
export function withValueAt(value: Json | undefined, at: Location, replacement: Json): Json {
  const [first, ...rest] = at;
  if (first === undefined) return replacement;
  const object: JsonObject = isObject(value) ? { ...value } : {};
  object[first] = withValueAt(object[first], rest, replacement);
  return object;
}

/** Whether the schema holds a moment (`format: date-time`), alone or as a branch of a nullable `oneOf`. */
export function isDateTime(spec: OpenApiDocument, schema: Json | undefined): boolean {
  const resolved = resolveSchema(spec, schema);
  if (resolved['format'] === 'date-time') return true;
  const branches = [...(Array.isArray(resolved['oneOf']) ? resolved['oneOf'] : []), ...(Array.isArray(resolved['anyOf']) ? resolved['anyOf'] : [])];
  return branches.some((branch) => isDateTime(spec, branch));
}

/** Whether the schema says the server sets the field (`readOnly: true`, beside a `$ref` or in the component). */
export function isReadOnly(spec: OpenApiDocument, schema: Json | undefined): boolean {
  return (isObject(schema) && schema['readOnly'] === true) || resolveSchema(spec, schema)['readOnly'] === true;
}

/** Whether the schema is a closed set of states (an enum, or a boolean): the fields an action such as revoke flips. */
export function isState(spec: OpenApiDocument, schema: Json | undefined): boolean {
  const resolved = resolveSchema(spec, schema);
  return Array.isArray(resolved['enum']) || resolved['type'] === 'boolean';
}

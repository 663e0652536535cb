import { deref, isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';

const SCHEMA_PREFIX = '#/components/schemas/';
const SUBSCHEMA_LISTS = ['oneOf', 'anyOf', 'allOf', 'prefixItems'] as const;

/** Follows a top-level `$ref` of a schema, keeping a `default` written beside it. */
export function resolveSchema(spec: OpenApiDocument, schema: Json | undefined): JsonObject {
  if (!isObject(schema)) return {};
  const target = typeof schema['$ref'] === 'string' ? deref(spec, schema) : schema;
  return schema['default'] !== undefined ? { ...target, default: schema['default'] } : target;
}

/** The component a schema names (`ItemId` for `$ref: '#/components/schemas/ItemId'`), if it is a plain reference. */
export function componentName(schema: Json | undefined): string | undefined {
  if (!isObject(schema) || typeof schema['$ref'] !== 'string' || !schema['$ref'].startsWith(SCHEMA_PREFIX)) return undefined;
  return schema['$ref'].slice(SCHEMA_PREFIX.length);
}

/** Every component a schema refers to, at any depth. */
export function componentsIn(spec: OpenApiDocument, schema: Json | undefined, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const entry of schema) componentsIn(spec, entry, found);
  if (!isObject(schema)) return found;
  const name = componentName(schema);
  if (name !== undefined) {
    if (found.has(name)) return found;
    found.add(name);
    return componentsIn(spec, deref(spec, schema), found);
  }
  for (const value of Object.values(schema)) componentsIn(spec, value, found);
  return found;
}

/** Values found in answers, by the component their schema refers to (`ItemId` → the ids of every item seen). */
export type Harvest = Map<string, Json[]>;

/** Most values kept per component: the suite needs one that exists, not all of them. */
const KEEP = 20;

/**
 * Walks a value alongside its schema and records every string or number that sits
 * where the schema refers to a component. An `ItemId` path parameter can then take
 * the id of an item a list answered with: a value the server made, not a guess.
 */
export function harvest(spec: OpenApiDocument, schema: Json | undefined, value: Json, into: Harvest, depth = 0): void {
  if (!isObject(schema) || depth > 16) return;
  const name = componentName(schema);
  if (name !== undefined) {
    if (typeof value === 'string' || typeof value === 'number') {
      const seen = into.get(name) ?? [];
      if (!seen.includes(value) && seen.length < KEEP) into.set(name, [...seen, value]);
    }
    harvest(spec, deref(spec, schema), value, into, depth + 1);
    return;
  }
  for (const keyword of SUBSCHEMA_LISTS) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) for (const branch of branches) harvest(spec, branch, value, into, depth + 1);
  }
  if (isObject(value) && isObject(schema['properties'])) {
    for (const [property, subschema] of Object.entries(schema['properties'])) {
      const child = value[property];
      if (child !== undefined) harvest(spec, subschema, child, into, depth + 1);
    }
  }
  if (Array.isArray(value) && schema['items'] !== undefined) for (const item of value) harvest(spec, schema['items'], item, into, depth + 1);
}

import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { componentName, resolveSchema } from './schema-refs.js';

/** How deep the view inlines components: a recursive one keeps its `$ref` below this. */
const MAX_DEPTH = 10;
const SUBSCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf', 'prefixItems'] as const;
const SUBSCHEMAS = ['items', 'additionalProperties', 'unevaluatedProperties', 'not', 'if', 'then', 'else', 'contains'] as const;

/**
 * A schema as a request must meet it: every `readOnly` property left out, at any depth, and dropped from
 * `required` (OpenAPI 3 §4.8.24: a read-only property "SHOULD NOT be sent as part of the request"; a
 * required one is required in responses only). Without it a `Pet` whose `id` is read-only and required
 * could have no valid request body at all. A schema with no read-only property anywhere is returned as
 * written, so its `$ref`s (and the components the harvest reads from them) stay.
 */
export function requestView(spec: OpenApiDocument, schema: Json): Json {
  return hasReadOnly(spec, schema, new Set()) ? view(spec, schema, 0) : schema;
}

function view(spec: OpenApiDocument, schema: Json, depth: number): Json {
  if (!isObject(schema) || depth > MAX_DEPTH) return schema;
  if (!hasReadOnly(spec, schema, new Set())) return schema;
  const resolved = resolveSchema(spec, schema);
  const out: JsonObject = { ...resolved };
  if (isObject(resolved['properties'])) {
    const readOnly = new Set<string>();
    const properties: JsonObject = {};
    for (const [name, property] of Object.entries(resolved['properties'])) {
      if (resolveSchema(spec, property)['readOnly'] === true) readOnly.add(name);
      else properties[name] = view(spec, property, depth + 1);
    }
    out['properties'] = properties;
    if (Array.isArray(resolved['required'])) out['required'] = resolved['required'].filter((name) => !readOnly.has(String(name)));
  }
  for (const keyword of SUBSCHEMA_LISTS) {
    const list = resolved[keyword];
    if (Array.isArray(list)) out[keyword] = list.map((entry) => view(spec, entry, depth + 1));
  }
  for (const keyword of SUBSCHEMAS) if (resolved[keyword] !== undefined) out[keyword] = view(spec, resolved[keyword], depth + 1);
  return out;
}

/** Whether a `readOnly` property sits anywhere under the schema (components followed once each). */
function hasReadOnly(spec: OpenApiDocument, schema: Json | undefined, seen: Set<string>): boolean {
  if (Array.isArray(schema)) return schema.some((entry) => hasReadOnly(spec, entry, seen));
  if (!isObject(schema)) return false;
  const name = componentName(schema);
  if (name !== undefined) {
    if (seen.has(name)) return false;
    seen.add(name);
    return hasReadOnly(spec, resolveSchema(spec, schema), seen);
  }
  if (isObject(schema['properties']) && Object.values(schema['properties']).some((property) => resolveSchema(spec, property)['readOnly'] === true)) return true;
  return Object.entries(schema).some(([key, value]) => key !== 'examples' && key !== 'example' && key !== 'default' && hasReadOnly(spec, value, seen));
}

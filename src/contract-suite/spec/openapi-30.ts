import { isObject, type Json, type JsonObject } from '../../contract/spec.js';

/** Keywords whose value is one subschema. */
const ONE = ['items', 'not', 'additionalProperties', 'if', 'then', 'else', 'contains', 'propertyNames'];
/** Keywords whose value is a list of subschemas. */
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to subschemas. */
const NAMED = ['properties', 'patternProperties', '$defs', 'definitions'];

/**
 * Rewrites, in place, every schema of an OpenAPI 3.0 document into JSON Schema 2020-12, which is
 * what Ajv reads here: 3.0's schema dialect differs from 2020-12 in two ways that change what
 * validates. `nullable: true` adds `null` to the type (and to an enum); a boolean
 * `exclusiveMinimum`/`exclusiveMaximum` makes `minimum`/`maximum` exclusive, where 2020-12 wants
 * the bound as the keyword's number. Schemas are found where 3.0 puts them (`components.schemas`,
 * every `schema` of a parameter, header or media type), so an example that happens to hold a
 * `nullable` field is left alone.
 */
export function convertOpenApi30Schemas(document: JsonObject): void {
  walkDocument(document, false);
}

function walkDocument(node: Json, underComponents: boolean): void {
  if (Array.isArray(node)) for (const entry of node) walkDocument(entry, false);
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'schema') convertSchema(value);
    else if (key === 'schemas' && underComponents && isObject(value)) for (const schema of Object.values(value)) convertSchema(schema);
    else if (key !== 'example' && key !== 'examples') walkDocument(value, key === 'components');
  }
}

function convertSchema(schema: Json): void {
  if (!isObject(schema)) return;
  if (schema['nullable'] === true) {
    const type = schema['type'];
    if (typeof type === 'string') schema['type'] = [type, 'null'];
    else if (Array.isArray(type) && !type.includes('null')) schema['type'] = [...type, 'null'];
    if (Array.isArray(schema['enum']) && !schema['enum'].includes(null)) schema['enum'] = [...schema['enum'], null];
  }
  delete schema['nullable'];
  exclusiveBound(schema, 'exclusiveMinimum', 'minimum');
  exclusiveBound(schema, 'exclusiveMaximum', 'maximum');
  for (const keyword of ONE) convertSchema(schema[keyword] ?? null);
  for (const keyword of MANY) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const entry of list) convertSchema(entry);
  }
  for (const keyword of NAMED) {
    const map = schema[keyword];
    if (isObject(map)) for (const entry of Object.values(map)) convertSchema(entry);
  }
}

function exclusiveBound(schema: JsonObject, exclusive: string, inclusive: string): void {
  if (typeof schema[exclusive] !== 'boolean') return;
  if (schema[exclusive] === true && typeof schema[inclusive] === 'number') {
    schema[exclusive] = schema[inclusive];
    delete schema[inclusive];
  } else delete schema[exclusive];
}

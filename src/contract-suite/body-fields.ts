import { noEffectOf, withNoEffect } from '../contract/operations.js';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../contract/spec.js';
import type { Field } from './field.js';
import { branchesOf, mergeAllOf } from './values/composed.js';
import { requestView } from './values/request-view.js';
import { componentName, resolveSchema } from './values/schema-refs.js';
import type { SchemaValues } from './values/schema-values.js';

/** What a request body offers to vary: its schema as a request must meet it, and its fields. */
export interface BodyFields {
  /** The body's schema as written (`SchemaValues.isValid` reads it as a request: read-only properties not required). */
  schema: Json;
  fields: Field[];
  /** Whether the body takes no property it does not declare (`additionalProperties` or `unevaluatedProperties` false). */
  closed: boolean;
}

/**
 * The fields of a request body, read through composition: an `allOf` gives the properties of all its
 * branches (merged, `values/composed.ts`); a `oneOf`/`anyOf` gives, besides the properties every
 * alternative shares, each alternative's own properties, each varied inside a body of its own
 * alternative (`Field.branch`: that alternative's smallest valid body, its discriminator value set).
 * The discriminator property is no field to vary: its value is which alternative the body is.
 * A read-only property is no field of a request at all.
 */
export function bodyFields(spec: OpenApiDocument, values: SchemaValues, written: Json): BodyFields {
  const merged = mergeAllOf(spec, requestView(spec, written));
  const fields: Field[] = propertyFields(spec, merged);
  const shared = new Set(fields.map((field) => field.name));
  const bodies = new Map(values.branches(written).map((branch) => [branch.label, branch.value]));
  for (const branch of branchesOf(spec, written)) {
    const body = bodies.get(branch.label);
    if (body === undefined) continue;
    for (const field of propertyFields(spec, branch.schema)) {
      if (shared.has(field.name) || field.name === branch.discriminator?.propertyName) continue;
      fields.push({ ...field, branch: { label: branch.label, body } });
    }
  }
  const closed = merged['additionalProperties'] === false || merged['unevaluatedProperties'] === false;
  return { schema: written, fields, closed };
}

function propertyFields(spec: OpenApiDocument, schema: JsonObject): Field[] {
  const required = Array.isArray(schema['required']) ? schema['required'].map(String) : [];
  const fields: Field[] = [];
  for (const [name, property] of Object.entries(isObject(schema['properties']) ? schema['properties'] : {})) {
    const resolved = mergeAllOf(spec, property);
    // A readOnly property is the server's to set: a request does not send it (OpenAPI 3 §4.8.24.1), so it is no field of one.
    if (resolved['readOnly'] === true) continue;
    const component = componentName(property);
    fields.push({
      location: 'body',
      name,
      required: required.includes(name),
      schema: property,
      resolved,
      ...(component !== undefined && { component }),
      ...(resolved['example'] !== undefined && { example: resolved['example'] }),
      ...withNoEffect(noEffectOf(isObject(property) ? property : {}) ?? noEffectOf(resolveSchema(spec, property))),
    });
  }
  return fields;
}

import { deref, isObject, type Json, type OpenApiDocument } from '../contract/spec.js';

/** Turns one parameter's text into the JSON value its schema describes, or leaves it as text for the schema to refuse. */
export type TextCoercer = (text: string) => unknown;

/** JSON's number grammar (RFC 8259 §6): no `+5`, `0x10`, `0b11`, `Infinity`, `1_0`, blanks or leading zeros. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * How a path, query or header parameter's text becomes a typed value before
 * validation. Ajv's `coerceTypes` uses JavaScript's `Number()`, which takes
 * `Infinity`, hex, binary and blanks; here a number must be written as JSON
 * writes one and come out finite, so anything else reaches the schema as text
 * and is refused with a 422 naming the parameter.
 */
export function coercerFor(spec: OpenApiDocument, schema: Json): TextCoercer {
  const types = typesOf(spec, schema);
  if (types.includes('integer') || types.includes('number')) {
    return (text) => {
      if (!JSON_NUMBER.test(text)) return text;
      const value = Number(text);
      return Number.isFinite(value) ? value : text;
    };
  }
  if (types.includes('boolean')) return (text) => (text === 'true' ? true : text === 'false' ? false : text);
  return (text) => text;
}

/** Applies each parameter's coercer to the values read as text; repeated values (arrays) are left for the schema to refuse. */
export function coerceTexts(values: Record<string, unknown>, coercers: ReadonlyMap<string, TextCoercer>): Record<string, unknown> {
  for (const name in values) {
    const value = values[name];
    const coerce = coercers.get(name);
    if (coerce && typeof value === 'string') values[name] = coerce(value);
  }
  return values;
}

function typesOf(spec: OpenApiDocument, schema: Json): string[] {
  if (!isObject(schema)) return [];
  const target = typeof schema['$ref'] === 'string' ? deref(spec, schema) : schema;
  const type = target['type'];
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string') : [];
}

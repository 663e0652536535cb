import { isJsonMediaType } from '../../contract/media-types.js';
import type { ParameterContract } from '../../contract/operations.js';
import { isObject, type Json } from '../../contract/spec.js';

/**
 * A parameter's value as OpenAPI 3 serializes it (§4.8.12.4, "Style Values" and "Style Examples"):
 * `simple`, `label` and `matrix` in a path, `form`, `spaceDelimited`, `pipeDelimited` and
 * `deepObject` in a query, `simple` in a header, `form` in a cookie, each exploded or not. A
 * parameter described by `content` is its media type's text (JSON). Query and cookie values come
 * out as name/value pairs, not yet percent-encoded; a path value comes out encoded, its delimiters kept.
 */
export function serializePath(parameter: ParameterContract, value: Json): string {
  if (parameter.mediaType !== undefined) return encodeURIComponent(asMedia(parameter.mediaType, value));
  const style = parameter.style ?? 'simple';
  const explode = parameter.explode ?? false;
  const name = parameter.name;
  const enc = (text: string) => encodeURIComponent(text);
  if (Array.isArray(value)) {
    const items = value.map((item) => enc(primitive(item)));
    if (style === 'label') return `.${items.join(explode ? '.' : ',')}`;
    if (style === 'matrix') return explode ? items.map((item) => `;${name}=${item}`).join('') : `;${name}=${items.join(',')}`;
    return items.join(',');
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(([key, item]) => [enc(key), enc(primitive(item))] as const);
    const joined = (pair: string, between: string) => entries.map(([key, item]) => `${key}${pair}${item}`).join(between);
    if (style === 'label') return explode ? `.${joined('=', '.')}` : `.${joined(',', ',')}`;
    if (style === 'matrix') return explode ? `;${joined('=', ';')}` : `;${name}=${joined(',', ',')}`;
    return explode ? joined('=', ',') : joined(',', ',');
  }
  const text = enc(primitive(value));
  if (style === 'label') return `.${text}`;
  if (style === 'matrix') return `;${name}=${text}`;
  return text;
}

/** Query or cookie pairs for one parameter (`form` by default, exploded by default). */
export function serializePairs(parameter: ParameterContract, value: Json): Array<[string, string]> {
  const name = parameter.name;
  if (parameter.mediaType !== undefined) return [[name, asMedia(parameter.mediaType, value)]];
  const style = parameter.style ?? 'form';
  const explode = parameter.explode ?? style === 'form';
  if (Array.isArray(value)) {
    const items = value.map(primitive);
    if (style === 'spaceDelimited') return [[name, items.join(' ')]];
    if (style === 'pipeDelimited') return [[name, items.join('|')]];
    return explode ? items.map((item) => [name, item]) : [[name, items.join(',')]];
  }
  if (isObject(value)) {
    const entries = Object.entries(value).map(([key, item]) => [key, primitive(item)] as [string, string]);
    if (style === 'deepObject') return entries.map(([key, item]) => [`${name}[${key}]`, item]);
    if (style === 'spaceDelimited') return [[name, entries.flat().join(' ')]];
    if (style === 'pipeDelimited') return [[name, entries.flat().join('|')]];
    return explode ? entries : [[name, entries.flat().join(',')]];
  }
  return [[name, primitive(value)]];
}

/** A header parameter's value (`simple`). */
export function serializeHeader(parameter: ParameterContract, value: Json): string {
  if (parameter.mediaType !== undefined) return asMedia(parameter.mediaType, value);
  const explode = parameter.explode ?? false;
  if (Array.isArray(value)) return value.map(primitive).join(',');
  if (isObject(value))
    return Object.entries(value)
      .map(([key, item]) => (explode ? `${key}=${primitive(item)}` : `${key},${primitive(item)}`))
      .join(',');
  return primitive(value);
}

/** A scalar as text: strings as they are, `null` as empty, anything else (a nested value) as JSON. */
export function primitive(value: Json): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function asMedia(mediaType: string, value: Json): string {
  return isJsonMediaType(mediaType) ? JSON.stringify(value) : primitive(value);
}

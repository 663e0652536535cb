import { essenceOf, isJsonMediaType } from '../../contract/media-types.js';
import type { OperationContract } from '../../contract/operations.js';
import { isObject, type Json } from '../../contract/spec.js';
import { primitive } from './parameters.js';

/** Request media types the suite can write, in the order it prefers them. */
const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';
/** A fixed boundary, so the same input always makes the same request (and the same curl). */
const BOUNDARY = 'contract-suite-boundary-7d1f';

/** The request body media type the suite sends for an operation: JSON if it takes JSON, else a form; undefined when it takes no body or only others. */
export function requestMediaType(operation: OperationContract): string | undefined {
  const types = Object.keys(operation.requestBody?.content ?? {});
  return (
    types.find((type) => isJsonMediaType(type) && type !== '*/*') ??
    types.find((type) => essenceOf(type) === FORM) ??
    types.find((type) => essenceOf(type) === MULTIPART)
  );
}

/** The media types of the body an operation takes that the suite cannot write (XML, binary), for the report. */
export function unwritableMediaTypes(operation: OperationContract): string[] {
  return Object.keys(operation.requestBody?.content ?? {}).filter((type) => !isJsonMediaType(type) && ![FORM, MULTIPART].includes(essenceOf(type)));
}

/** The body as text and the Content-Type that says how it is written. */
export function writeBody(mediaType: string, value: Json): { body: string; contentType: string } {
  const essence = essenceOf(mediaType);
  if (essence === FORM) return { body: new URLSearchParams(formPairs(value)).toString(), contentType: FORM };
  if (essence === MULTIPART) return { body: multipart(value), contentType: `${MULTIPART}; boundary=${BOUNDARY}` };
  return { body: JSON.stringify(value), contentType: mediaType === '*/*' ? 'application/json' : mediaType };
}

/**
 * An object's properties as form fields, as OpenAPI's default encoding of a form (`style: form`,
 * `explode: true`) writes them: an array repeats its field, a nested object's properties become
 * fields of their own.
 */
function formPairs(value: Json): Array<[string, string]> {
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([name, item]): Array<[string, string]> => {
    if (Array.isArray(item)) return item.map((entry) => [name, primitive(entry)]);
    if (isObject(item)) return Object.entries(item).map(([key, entry]) => [key, primitive(entry)]);
    return [[name, primitive(item)]];
  });
}

function multipart(value: Json): string {
  const parts = Object.entries(isObject(value) ? value : {}).flatMap(([name, item]) =>
    Array.isArray(item) && item.every((entry) => typeof entry !== 'object' || entry === null)
      ? item.map((entry) => [name, entry] as const)
      : [[name, item] as const],
  );
  const lines: string[] = [];
  for (const [name, item] of parts) {
    const json = typeof item === 'object' && item !== null;
    lines.push(
      `--${BOUNDARY}`,
      `Content-Disposition: form-data; name="${name.replaceAll('"', '%22')}"`,
      `Content-Type: ${json ? 'application/json' : 'text/plain'}`,
      '',
      primitive(item),
    );
  }
  lines.push(`--${BOUNDARY}--`, '');
  return lines.join('\r\n');
}

/** `Accept`: the media types the operation's answers are documented in, JSON first, so an API that offers several answers in one the suite can read. */
export function acceptHeader(operation: OperationContract): string | undefined {
  const types = [...new Set(Object.values(operation.responses).flatMap((response) => Object.keys(response.content)))];
  if (types.length === 0) return undefined;
  const json = types.filter((type) => isJsonMediaType(type) && type !== '*/*');
  const others = types.filter((type) => !isJsonMediaType(type)).map((type) => `${type};q=0.5`);
  const any = types.includes('*/*') ? ['*/*;q=0.1'] : [];
  return [...json, ...others, ...any].join(', ');
}

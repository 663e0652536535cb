import { isJsonMediaType } from '../contract/media-types.js';
import type { OperationContract } from '../contract/operations.js';
import { isObject, type Json, type OpenApiDocument } from '../contract/spec.js';
import { branchesOf, branchOfValue, mergeAllOf } from './values/composed.js';

/** How deep an answer is walked: far enough for any real resource, bounded for a recursive schema. */
const MAX_DEPTH = 12;

/**
 * Where an answer carries a property its schema marks `writeOnly` (a password, a secret a client sends and
 * the server keeps): OpenAPI 3 §4.8.24 says such a property "SHOULD NOT be sent as part of the response".
 * Found at any depth, through `allOf` (merged), and in a `oneOf`/`anyOf` through the alternative its
 * discriminator names, or, without one, only where every alternative that declares the property marks it
 * `writeOnly` (so a property write-only in one alternative and shown in another is never a false alarm).
 * Returns JSON pointers, e.g. `/secret` or `/items/0/password`.
 */
export function writeOnlyIn(spec: OpenApiDocument, schema: Json | undefined, value: Json, at = '', depth = 0): string[] {
  if (schema === undefined || depth > MAX_DEPTH) return [];
  const merged = mergeAllOf(spec, schema);
  if (Array.isArray(value)) {
    const items = merged['items'];
    return items === undefined ? [] : value.flatMap((item, index) => writeOnlyIn(spec, items, item, `${at}/${index}`, depth + 1));
  }
  if (!isObject(value)) return [];
  const branches = branchesOf(spec, merged);
  if (branches.length > 0) {
    const named = branchOfValue(spec, merged, value);
    if (named) return writeOnlyIn(spec, named.schema, value, at, depth + 1);
    // No discriminator to say which: a property counts only where each alternative that declares it marks it writeOnly.
    const found = branches.map((branch) => new Set(writeOnlyIn(spec, branch.schema, value, at, depth + 1)));
    const declaring = (pointer: string) => found.filter((set) => set.has(pointer));
    return [...new Set(found.flatMap((set) => [...set]))].filter((pointer) => declaring(pointer).length === branches.length);
  }
  const properties = isObject(merged['properties']) ? merged['properties'] : {};
  const found: string[] = [];
  for (const [name, child] of Object.entries(value)) {
    const property = properties[name];
    if (property === undefined) continue;
    const pointer = `${at}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (mergeAllOf(spec, property)['writeOnly'] === true) found.push(pointer);
    else found.push(...writeOnlyIn(spec, property, child, pointer, depth + 1));
  }
  return found;
}

/** The writeOnly properties an answer of this operation carries, as findings' messages; none for a body that is not JSON. */
export function writeOnlyReturned(
  spec: OpenApiDocument,
  operation: OperationContract,
  status: number,
  contentType: string | null,
  body: Json | undefined,
): string[] {
  if (body === undefined || contentType === null || !isJsonMediaType(contentType.split(';')[0]?.trim() ?? '')) return [];
  const response = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses['default'];
  const media = Object.entries(response?.content ?? {}).find(([type]) => isJsonMediaType(type))?.[1];
  return writeOnlyIn(spec, media?.schema, body).map(
    (pointer) => `writeOnly field returned: ${pointer} is marked writeOnly in the spec (sent by clients, never shown), yet the ${status} answer carries it`,
  );
}

import { isObject, type Json, type OpenApiDocument } from '../contract/spec.js';
import { branchesOf, branchOfValue, mergeAllOf } from './values/composed.js';

/** How deep a sent body is compared: deeper than any resource, bounded for a recursive one. */
const MAX_DEPTH = 12;

/** One value a write sent that a read of the resource shows otherwise, or not at all where its schema has room for it. */
export interface ReadBackDifference {
  /** Where, as a JSON pointer: `/name`, `/details/breed`. */
  pointer: string;
  sent: Json;
  /** What the read shows there; absent when it shows nothing (the field was dropped). */
  read?: Json;
}

/**
 * Every scalar a write sent, at any depth, compared with a read of the resource after it: a value that reads
 * back otherwise (a rename that does not rename), or that does not read back at all though the read's schema
 * declares it there (an optional field dropped, such as the `breed` inside a `oneOf` of `details`). A property
 * the request marks `writeOnly` is not expected back; a property the read's schema has no room for (a
 * request-only field under another name) is not judged. The read's schema is followed through `allOf`
 * (merged) and `oneOf`/`anyOf` (the alternative the resource's discriminator names, else any alternative).
 */
export function readBackDifferences(
  spec: OpenApiDocument,
  request: { schema: Json | undefined; sent: Json },
  read: { schema: Json | undefined; resource: Json },
): ReadBackDifference[] {
  const differences: ReadBackDifference[] = [];
  walk(spec, request.schema, request.sent, read.schema, read.resource, '', 0, differences);
  return differences;
}

function walk(
  spec: OpenApiDocument,
  requestSchema: Json | undefined,
  sent: Json,
  readSchema: Json | undefined,
  resource: Json | undefined,
  pointer: string,
  depth: number,
  into: ReadBackDifference[],
): void {
  if (depth > MAX_DEPTH || !isObject(sent)) return;
  const requestProperties = propertiesOf(spec, requestSchema, sent);
  const readProperties = propertiesOf(spec, readSchema, resource ?? {});
  for (const [name, value] of Object.entries(sent)) {
    const requestProperty = requestProperties[name];
    if (requestProperty !== undefined && mergeAllOf(spec, requestProperty)['writeOnly'] === true) continue;
    const here = `${pointer}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const shown = isObject(resource) ? resource[name] : undefined;
    const declared = readProperties[name] !== undefined;
    if (isObject(value)) {
      if (isObject(shown) || declared) walk(spec, requestProperty, value, readProperties[name], isObject(shown) ? shown : {}, here, depth + 1, into);
      continue;
    }
    // Lists are compared whole only when they hold scalars: an order or an id the server adds would make more a false alarm.
    if (Array.isArray(value) && value.some((item) => isObject(item) || Array.isArray(item))) continue;
    if (shown === undefined) {
      if (declared) into.push({ pointer: here, sent: value });
      continue;
    }
    if (JSON.stringify(shown) !== JSON.stringify(value)) into.push({ pointer: here, sent: value, read: shown });
  }
}

/** The properties a schema declares for a value: merged through `allOf`, through the alternative a discriminator names, else every alternative's. */
function propertiesOf(spec: OpenApiDocument, schema: Json | undefined, value: Json): Record<string, Json> {
  if (schema === undefined) return {};
  const merged = mergeAllOf(spec, schema);
  const own = isObject(merged['properties']) ? merged['properties'] : {};
  const named = branchOfValue(spec, merged, value);
  const branches = named ? [named] : branchesOf(spec, merged);
  const fromBranches = branches.map((branch) => (isObject(branch.schema['properties']) ? branch.schema['properties'] : {}));
  return Object.assign({}, ...fromBranches.reverse(), own);
}

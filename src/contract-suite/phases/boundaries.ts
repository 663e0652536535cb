import { isObject, type Json, type OpenApiDocument } from '../../contract/spec.js';
import type { Location } from '../case.js';
import { mergeAllOf } from '../values/composed.js';
import { insideValue, numericBounds, type SchemaValues } from '../values/schema-values.js';
import { SMALL_DOMAIN, smallDomain } from './arbitraries.js';

/** A string longer than this is not sent at its `maxLength`: a body limit would refuse it before the field is read. */
const LONGEST_STRING = 10_000;

/**
 * The values of one field a deterministic walk tries before any random one, as Schemathesis' coverage phase
 * does: the whole domain where it is small (an enum, a boolean, an integer range of at most `SMALL_DOMAIN`
 * values such as `limit` 1 to 100, edges first), else its edges: both bounds of a number and one value
 * inside, a string at its `minLength` and at its `maxLength`, `null` where the field is nullable, an array
 * at its `minItems` and `maxItems`, the default and the example. Only values valid against the field's
 * schema are kept, so a server must accept each: a 500 at `limit=37`, on `tag: null` or on a note at its
 * longest is found on every run, not when the draw happens to hit it.
 */
export function coverageValues(spec: OpenApiDocument, values: SchemaValues, schema: Json, location: Location, seed: number): Json[] {
  const domain = smallDomain(spec, schema, seed);
  const resolved = mergeAllOf(spec, schema);
  const candidates: Array<Json | undefined> = domain ? [...domain] : [];
  const types = Array.isArray(resolved['type']) ? resolved['type'].map(String) : [String(resolved['type'])];
  if (!domain) {
    if (types.includes('integer') || types.includes('number')) {
      const { low, high } = numericBounds(resolved);
      candidates.push(low, high, insideValue(resolved));
    }
    if (types.includes('string') && resolved['enum'] === undefined && resolved['format'] === undefined && resolved['pattern'] === undefined) {
      const min = typeof resolved['minLength'] === 'number' ? resolved['minLength'] : 0;
      const max = typeof resolved['maxLength'] === 'number' ? resolved['maxLength'] : undefined;
      // An empty string outside the body is no value on the wire (`?q=` reads as present but empty): there, one character at least.
      candidates.push(fill(location === 'body' ? min : Math.max(min, 1)));
      if (max !== undefined && max <= LONGEST_STRING) candidates.push(fill(max));
    }
    if (types.includes('array')) {
      const item = values.one(isObject(resolved['items']) ? resolved['items'] : {});
      const min = typeof resolved['minItems'] === 'number' ? resolved['minItems'] : location === 'body' ? 0 : 1;
      const max = typeof resolved['maxItems'] === 'number' && resolved['maxItems'] <= SMALL_DOMAIN ? resolved['maxItems'] : undefined;
      if (item !== undefined) candidates.push(Array(min).fill(item), ...(max === undefined ? [] : [Array(max).fill(item)]));
    }
    candidates.push(resolved['default'], resolved['example']);
  }
  // `null` where the schema allows it (3.1's `type: [string, null]`, 3.0's `nullable`, read as the former).
  if (location === 'body' && (types.includes('null') || resolved['nullable'] === true)) candidates.push(null);
  const seen = new Set<string>();
  return candidates.filter((value): value is Json => {
    if (value === undefined || seen.has(JSON.stringify(value))) return false;
    seen.add(JSON.stringify(value));
    return values.isValid(schema, value);
  });
}

/** Readable text of an exact length (a note of 500 characters), not one repeated letter a server may compress or refuse as spam. */
function fill(length: number): string {
  return 'contract suite coverage '.repeat(Math.ceil(length / 24) + 1).slice(0, length);
}

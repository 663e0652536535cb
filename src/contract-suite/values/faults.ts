import type { Json, JsonObject } from '../../contract/spec.js';
import type { Family, Location } from '../case.js';
import { patternRegExp } from './pattern.js';

/** One bad value, breaking one constraint of a field's schema. */
export interface Fault {
  family: Family;
  value: Json;
  title: (name: string) => string;
}

/**
 * One bad value per constraint of a field's schema. On the wire a query, header,
 * path or cookie value is text, and so is a field of a form body (`textual`), so only a number can be mistyped there; and a path
 * segment cannot be empty or a dot segment (the URL would mean another path).
 */
export function faultsOf(schema: JsonObject, location: Location, textual = location !== 'body'): Fault[] {
  const faults: Fault[] = [];
  const type = schema['type'];
  const fitsLocation = (value: string) => location !== 'path' || !['', '.', '..'].includes(value);
  if (Array.isArray(schema['enum'])) {
    const allowed = schema['enum'].map(String);
    const value = ['up', 'invalid', 'not-a-value'].find((candidate) => !allowed.includes(candidate)) ?? 'not-a-value';
    faults.push({ family: 'invalid-enum', value, title: (name) => `invalid ${name} "${value}" (not one of ${allowed.join(', ')})` });
  }
  const wrong = wrongTypeValue(type, textual);
  if (wrong !== undefined)
    faults.push({ family: 'wrong-type', value: wrong, title: (name) => `wrong type: ${name} ${JSON.stringify(wrong)} (not ${String(type)})` });
  if (typeof schema['maximum'] === 'number') {
    const value = schema['maximum'] + 1;
    faults.push({ family: 'over-maximum', value, title: (name) => `over-limit ${name} ${value} (maximum ${String(schema['maximum'])})` });
  }
  if (typeof schema['minimum'] === 'number') {
    const value = schema['minimum'] - 1;
    faults.push({ family: 'under-minimum', value, title: (name) => `${name} ${value} under the minimum ${String(schema['minimum'])}` });
  }
  const pattern = typeof schema['pattern'] === 'string' ? patternRegExp(schema['pattern']) : undefined;
  if (pattern !== undefined) {
    const value = ['not a valid value!', '!', '..'].find((candidate) => !pattern.test(candidate) && fitsLocation(candidate));
    if (value !== undefined) faults.push({ family: 'pattern-mismatch', value, title: (name) => `${name} ${JSON.stringify(value)} not matching its pattern` });
  }
  const format = typeof schema['format'] === 'string' ? NOT_OF_FORMAT[schema['format']] : undefined;
  if (format !== undefined && (type === 'string' || type === undefined) && fitsLocation(format))
    faults.push({ family: 'format-mismatch', value: format, title: (name) => `${name} ${JSON.stringify(format)} not a ${String(schema['format'])}` });
  if (typeof schema['maxLength'] === 'number') {
    const value = 'a'.repeat(schema['maxLength'] + 1);
    faults.push({ family: 'too-long', value, title: (name) => `${name} of ${value.length} characters (maxLength ${String(schema['maxLength'])})` });
  }
  if (typeof schema['minLength'] === 'number' && schema['minLength'] > 0) {
    const value = 'a'.repeat(schema['minLength'] - 1);
    if (fitsLocation(value))
      faults.push({ family: 'too-short', value, title: (name) => `${name} of ${value.length} characters (minLength ${String(schema['minLength'])})` });
  }
  return faults;
}

/**
 * A short string that is not of the format, for each string format a validator checks (ajv-formats' and Prism's):
 * a field with `format: uuid` and nothing else to hold it (a path parameter) is refused by its format alone.
 */
const NOT_OF_FORMAT: Readonly<Record<string, string>> = {
  uuid: 'not-a-uuid',
  'date-time': 'yesterday',
  date: '2026-13-45',
  time: '25:61',
  email: 'no-at-sign',
  uri: 'no scheme',
  hostname: 'no host!',
  ipv4: '256.1.1.1',
  ipv6: 'not:an:ip::v6::',
};

/** A value of another JSON type; in text (a query string, header, path, cookie or form body) only a number can be mistyped. */
function wrongTypeValue(type: Json | undefined, textual: boolean): Json | undefined {
  switch (type) {
    case 'integer':
    case 'number':
      return 'ten';
    case 'string':
      return textual ? undefined : 42;
    case 'boolean':
      return textual ? undefined : 'yes';
    default:
      return undefined;
  }
}

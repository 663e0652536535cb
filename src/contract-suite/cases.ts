import type { OperationContract, ParameterContract } from '../contract/operations.js';
import { deref, isObject, type Json, type JsonObject, type OpenApiDocument } from '../contract/spec.js';
import { generateApiKey } from '../keys/api-key.js';

/** What a case is about. The known differences and the report refer to cases by family. */
export type Family =
  | 'example'
  | 'sort'
  | 'pagination'
  | 'content-type-without-body'
  | 'no-authorization'
  | 'other-scheme'
  | 'empty-bearer'
  | 'malformed-key'
  | 'unknown-key'
  | 'invalid-enum'
  | 'wrong-type'
  | 'over-maximum'
  | 'under-minimum'
  | 'pattern-mismatch'
  | 'too-long'
  | 'too-short'
  | 'unknown-field'
  | 'malformed-json'
  | 'wrong-content-type';

export type Polarity = 'positive' | 'negative';

/** Where a case puts the list options, or where its fault lies. */
export type Location = 'body' | 'query' | 'header';

/** The options of a list request: the POST body, or the GET query read as an object. */
export type ListOptions = Record<string, Json>;

/** Replaces the options' default wire form (authorization, content type, raw body). */
export interface RequestOverrides {
  /** `null` leaves the `Authorization` header out; a string replaces it. */
  authorization?: string | null;
  contentType?: string | null;
  /** Raw body text, sent as is. */
  body?: string;
}

/** One check of the suite, derived from the spec. */
export interface SuiteCase {
  /** Stable identifier, e.g. `listOwnItems negative invalid-enum body/sort`. */
  id: string;
  operation: OperationContract;
  polarity: Polarity;
  family: Family;
  location: Location;
  title: string;
  /** The status the contract calls for. */
  expectedStatus: number;
  options: ListOptions;
  overrides: RequestOverrides;
  /** For a 422: the violation the `errors` list must name. */
  violation?: { in: 'body' | 'query'; pointer: string };
  /** The options carry a cursor: replace it with a live one taken from the first page. */
  liveCursor?: boolean;
  /** A pagination walk instead of one request. */
  walk?: { limit: number };
}

/** Facts about the list options that the suite reads from the spec once. */
export interface ListShape {
  /** Where the options go: the JSON body (POST) or the query string (GET). */
  location: 'body' | 'query';
  /** Schema of each option, `$ref`s followed one level. */
  properties: Record<string, JsonObject>;
  /** Named examples of the options (request body examples, or parameter examples). */
  examples: Record<string, ListOptions>;
  /** Whether unknown options are rejected (body: `additionalProperties: false`; query: the spec's rule for this API). */
  closed: boolean;
  sortValues: string[];
  defaultSort: string;
  defaultLimit: number;
  minLimit: number;
  maxLimit: number;
}

const SUCCESS = 200;
const UNAUTHORIZED = 401;
const BAD_REQUEST = 400;
const UNSUPPORTED_MEDIA_TYPE = 415;
const UNPROCESSABLE = 422;

/** A well-formed `Basic` credential that is not the caller's key. */
const BASIC_CREDENTIALS = `Basic ${btoa('contract-suite:not-a-bearer-token')}`;

/**
 * Reads where the options of an operation live and what their schemas allow.
 * Undefined for anything but a list operation (a 200 answer with `items` and
 * `nextCursor`): list operations only read, so the suite stays safe to run against
 * a live service even if the spec gains operations that write.
 */
export function listShape(spec: OpenApiDocument, operation: OperationContract): ListShape | undefined {
  const page = resolve(spec, operation.responses['200']?.content['application/json']?.schema);
  const pageProperties = isObject(page['properties']) ? page['properties'] : {};
  if (!('items' in pageProperties) || !('nextCursor' in pageProperties)) return undefined;
  const media = operation.requestBody?.content['application/json'];
  if (media) {
    const schema = resolve(spec, media.schema);
    const properties = Object.fromEntries(Object.entries(isObject(schema['properties']) ? schema['properties'] : {}).map(([name, value]) => [name, resolve(spec, value)]));
    const examples = Object.fromEntries(Object.entries(media.examples).filter((entry): entry is [string, ListOptions] => isObject(entry[1])));
    return shape('body', properties, examples, schema['additionalProperties'] === false);
  }
  const query = operation.parameters.filter((parameter) => parameter.in === 'query');
  if (query.length === 0) return undefined;
  const properties = Object.fromEntries(query.map((parameter) => [parameter.name, resolve(spec, parameter.schema)]));
  // The spec says of every GET: "Unknown query parameters are rejected with 422" (OpenAPI has no keyword for it).
  return shape('query', properties, parameterExamples(query), true);
}

function shape(location: 'body' | 'query', properties: Record<string, JsonObject>, examples: Record<string, ListOptions>, closed: boolean): ListShape {
  const sort = properties['sort'] ?? {};
  const limit = properties['limit'] ?? {};
  const sortValues = Array.isArray(sort['enum']) ? sort['enum'].map(String) : [];
  return {
    location,
    properties,
    examples,
    closed,
    sortValues,
    defaultSort: typeof sort['default'] === 'string' ? sort['default'] : (sortValues[0] ?? 'asc'),
    defaultLimit: typeof limit['default'] === 'number' ? limit['default'] : 20,
    minLimit: typeof limit['minimum'] === 'number' ? limit['minimum'] : 1,
    maxLimit: typeof limit['maximum'] === 'number' ? limit['maximum'] : 100,
  };
}

/** Each parameter's example alone, then all of them together. */
function parameterExamples(parameters: ParameterContract[]): Record<string, ListOptions> {
  const examples: Record<string, ListOptions> = {};
  const all: ListOptions = {};
  for (const parameter of parameters) {
    if (parameter.example === undefined) continue;
    examples[`parameter ${parameter.name}`] = { [parameter.name]: parameter.example };
    all[parameter.name] = parameter.example;
  }
  if (Object.keys(all).length > 1) examples['all parameter examples'] = all;
  return examples;
}

/**
 * Derives every case of the suite from the operations of the spec: positive
 * cases from the named examples, every `sort` value and a pagination walk;
 * negative cases for authentication, for each constraint of each option, for
 * unknown options and, where there is a JSON body, for malformed JSON and a wrong
 * content type.
 */
export function deriveCases(spec: OpenApiDocument, operations: OperationContract[]): SuiteCase[] {
  const cases: SuiteCase[] = [];
  for (const operation of operations) {
    const list = listShape(spec, operation);
    if (!list) continue;
    const add = (entry: Omit<SuiteCase, 'operation' | 'id' | 'overrides'> & { overrides?: RequestOverrides; key: string }) => {
      const { key, ...rest } = entry;
      cases.push({ overrides: {}, ...rest, operation, id: `${operation.operationId} ${entry.polarity} ${entry.family}${key ? ` ${key}` : ''}` });
    };
    const positive = { polarity: 'positive' as const, expectedStatus: SUCCESS, location: list.location };
    const defaults: ListOptions = {};

    for (const [name, options] of Object.entries(list.examples)) {
      const liveCursor = 'cursor' in options;
      const shown = Object.entries(options)
        .map(([option, value]) => `${option}=${option === 'cursor' ? '<live cursor>' : JSON.stringify(value)}`)
        .join(' ');
      add({ ...positive, family: 'example', key: name, title: `example "${name}" (${shown || 'no options'})`, options, liveCursor });
    }
    for (const value of list.sortValues) {
      add({ ...positive, family: 'sort', key: value, title: `sort ${value}`, options: { sort: value } });
    }
    if ('cursor' in list.properties) {
      // Two a page, so even a short list spans several pages.
      const limit = Math.max(list.minLimit, Math.min(2, list.maxLimit));
      add({ ...positive, family: 'pagination', key: '', title: `walk every page (limit ${limit}) and compare with one big page`, options: { limit }, walk: { limit } });
    }
    if (list.location === 'query') {
      add({
        ...positive,
        family: 'content-type-without-body',
        key: '',
        title: 'Content-Type: application/json without a body (as in the source example) is accepted',
        options: defaults,
        overrides: { contentType: 'application/json' },
      });
    }

    if (operation.security.length > 0) {
      const auth = { polarity: 'negative' as const, expectedStatus: UNAUTHORIZED, location: 'header' as const, options: defaults };
      add({ ...auth, family: 'no-authorization', key: '', title: 'no Authorization header', overrides: { authorization: null } });
      add({ ...auth, family: 'other-scheme', key: '', title: 'another scheme (Basic)', overrides: { authorization: BASIC_CREDENTIALS } });
      add({ ...auth, family: 'empty-bearer', key: '', title: 'empty bearer token', overrides: { authorization: 'Bearer ' } });
      add({ ...auth, family: 'malformed-key', key: '', title: 'malformed key (bad checksum)', overrides: { authorization: `Bearer tka_${'0'.repeat(38)}` } });
      // A fresh, well-formed key: 190 random bits, so it cannot belong to anyone.
      add({ ...auth, family: 'unknown-key', key: '', title: 'unknown key (well-formed)', overrides: { authorization: `Bearer ${generateApiKey().key}` } });
    }

    const negative = { polarity: 'negative' as const, expectedStatus: UNPROCESSABLE, location: list.location };
    for (const [name, schema] of Object.entries(list.properties)) {
      for (const fault of faultsOf(schema, list.location)) {
        add({
          ...negative,
          family: fault.family,
          key: `${list.location}/${name}`,
          title: `${fault.title(name)} in the ${list.location}`,
          options: { [name]: fault.value },
          violation: { in: list.location, pointer: `/${name}` },
        });
      }
    }
    if (list.closed) {
      const unknown = typoOf(Object.keys(list.properties));
      add({
        ...negative,
        family: 'unknown-field',
        key: `${list.location}/${unknown}`,
        title: `unknown ${list.location === 'body' ? 'field' : 'query parameter'} "${unknown}"`,
        options: { [unknown]: list.sortValues[0] ?? 'x' },
        violation: { in: list.location, pointer: `/${unknown}` },
      });
    }
    if (list.location === 'body') {
      add({ ...negative, family: 'malformed-json', key: '', title: 'malformed JSON body', expectedStatus: BAD_REQUEST, options: defaults, overrides: { body: '{"sort":' } });
      add({
        ...negative,
        family: 'wrong-content-type',
        key: '',
        title: 'JSON body sent as text/plain',
        expectedStatus: UNSUPPORTED_MEDIA_TYPE,
        location: 'header',
        options: defaults,
        overrides: { contentType: 'text/plain', body: '{}' },
      });
    }
  }
  return cases;
}

interface Fault {
  family: Family;
  value: Json;
  title: (name: string) => string;
}

/** One bad value per constraint of an option's schema. */
function faultsOf(schema: JsonObject, location: 'body' | 'query'): Fault[] {
  const faults: Fault[] = [];
  const type = schema['type'];
  if (Array.isArray(schema['enum'])) {
    const allowed = schema['enum'].map(String);
    const value = ['up', 'invalid', 'not-a-value'].find((candidate) => !allowed.includes(candidate)) ?? 'not-a-value';
    faults.push({ family: 'invalid-enum', value, title: (name) => `invalid ${name} "${value}" (not one of ${allowed.join(', ')})` });
  }
  const wrong = wrongTypeValue(type, location);
  if (wrong !== undefined) faults.push({ family: 'wrong-type', value: wrong, title: (name) => `wrong type: ${name} ${JSON.stringify(wrong)} (not ${String(type)})` });
  if (typeof schema['maximum'] === 'number') {
    const value = schema['maximum'] + 1;
    faults.push({ family: 'over-maximum', value, title: (name) => `over-limit ${name} ${value} (maximum ${String(schema['maximum'])})` });
  }
  if (typeof schema['minimum'] === 'number') {
    const value = schema['minimum'] - 1;
    faults.push({ family: 'under-minimum', value, title: (name) => `${name} ${value} under the minimum ${String(schema['minimum'])}` });
  }
  if (typeof schema['pattern'] === 'string') {
    const pattern = new RegExp(schema['pattern'], 'u');
    const value = ['not a valid value!', '!', '..'].find((candidate) => !pattern.test(candidate));
    if (value !== undefined) faults.push({ family: 'pattern-mismatch', value, title: (name) => `${name} ${JSON.stringify(value)} not matching its pattern` });
  }
  if (typeof schema['maxLength'] === 'number') {
    const value = 'a'.repeat(schema['maxLength'] + 1);
    faults.push({ family: 'too-long', value, title: (name) => `${name} of ${value.length} characters (maxLength ${String(schema['maxLength'])})` });
  }
  if (typeof schema['minLength'] === 'number' && schema['minLength'] > 0) {
    const value = 'a'.repeat(schema['minLength'] - 1);
    faults.push({ family: 'too-short', value, title: (name) => `${name} of ${value.length} characters (minLength ${String(schema['minLength'])})` });
  }
  return faults;
}

/** A value of another JSON type; in a query string only a number can be mistyped (as text). */
function wrongTypeValue(type: Json | undefined, location: 'body' | 'query'): Json | undefined {
  switch (type) {
    case 'integer':
    case 'number':
      return 'ten';
    case 'string':
      return location === 'body' ? 42 : undefined;
    case 'boolean':
      return location === 'body' ? 'yes' : undefined;
    default:
      return undefined;
  }
}

/** A plausible typo of the first option (`sort` becomes `srot`) that is not itself an option. */
function typoOf(names: string[]): string {
  const first = names[0] ?? 'option';
  const typo = first.length > 2 ? `${first.charAt(0)}${first.charAt(2)}${first.charAt(1)}${first.slice(3)}` : `${first}x`;
  return names.includes(typo) ? `${typo}_unknown` : typo;
}

/** Follows a top-level `$ref` of a schema, keeping a `default` written beside it. */
function resolve(spec: OpenApiDocument, schema: Json | undefined): JsonObject {
  if (!isObject(schema)) return {};
  const target = typeof schema['$ref'] === 'string' ? deref(spec, schema) : schema;
  return schema['default'] !== undefined ? { ...target, default: schema['default'] } : target;
}

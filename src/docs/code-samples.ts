/**
 * Request samples for the rendered docs (Redoc's `x-codeSamples`), written from
 * the spec at build time, so a sample cannot go stale: a `curl` command and the
 * same call through the typed client, for every operation. The samples use the
 * operation's own examples (the first named request body example, path and
 * query parameter examples) and the first server's URL.
 */
import type { OperationContract, ParameterContract } from '../contract/operations.js';
import { deref, isObject, type Json, type JsonObject, type OpenApiDocument } from '../contract/spec.js';

/** One entry of Redoc's `x-codeSamples`. */
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/**
 * The samples every operation gets, as Redoc 3's `codeSamples.languages` option
 * lists them: Redoc shows an `x-codeSamples` entry only when a language of that
 * option has the `key` it derives from the entry's label (the label in lower case).
 */
export const SAMPLE_LANGUAGES = {
  curl: { key: 'curl', label: 'curl', lang: 'bash' },
  client: { key: 'typed client', label: 'Typed client', lang: 'typescript' },
} as const;

/**
 * How each contract's typed client is made (`src/client/`), as the package a
 * frontend installs exports it (see `src/client/package.ts`). The docs test
 * typechecks every sample against the packed client, so a renamed factory fails there.
 */
export interface ClientSetup {
  /** The module a program imports. */
  module: string;
  factory: string;
  /** The options object's source, given the base URL. */
  options(baseUrl: string): string;
  /** What a credential looks like in a curl command, for an operation that needs one. */
  curlCredential(spec: OpenApiDocument, scheme: string): string;
}

const CLIENTS: Record<string, ClientSetup> = {
  main: {
    module: '@bearer-list-api/client',
    factory: 'createApiClient',
    options: (baseUrl) => `{ baseUrl: ${quote(baseUrl)}, apiKey: API_KEY }`,
    curlCredential: () => `-H "Authorization: Bearer $API_KEY"`,
  },
  account: {
    module: '@bearer-list-api/client/account',
    factory: 'createAccountClient',
    // In the browser the session cookie travels by itself; the pages use `/api` on their own origin.
    options: () => `{ baseUrl: '/api' }`,
    curlCredential: (spec, scheme) => `-b "${cookieName(spec, scheme)}=$SESSION"`,
  },
};

/** The client of a contract `redocly.yaml` names (`main`, `account`). */
export function clientSetup(contract: string): ClientSetup {
  const setup = CLIENTS[contract];
  if (!setup) throw new Error(`no typed client is known for the contract ${JSON.stringify(contract)}; add it to CLIENTS in src/docs/code-samples.ts`);
  return setup;
}

/** The first server's URL with its variables at their defaults: what `npm start` serves. */
export function defaultServerUrl(spec: OpenApiDocument): string {
  const servers = Array.isArray(spec['servers']) ? spec['servers'] : [];
  const first = servers[0];
  if (!isObject(first) || typeof first['url'] !== 'string') throw new Error('the spec lists no server');
  const variables = isObject(first['variables']) ? first['variables'] : {};
  return first['url'].replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name];
    const value = isObject(variable) ? variable['default'] : undefined;
    if (typeof value !== 'string') throw new Error(`server variable ${name} has no default`);
    return value;
  });
}

/** The request an operation's samples send: its parameters and body from the spec's examples. */
export interface SampleRequest {
  path: Record<string, Json>;
  query: Record<string, Json>;
  header: Record<string, Json>;
  body?: Json;
}

/**
 * What a sample sends. Path parameters and required header and query parameters
 * take their examples; an optional query parameter is shown only when its
 * example is a setting a reader would choose (a number, or one of an enum), not
 * a value only an earlier answer can give (a cursor). The body is the first
 * named example of the request body.
 */
export function sampleRequest(spec: OpenApiDocument, operation: OperationContract): SampleRequest {
  const request: SampleRequest = { path: {}, query: {}, header: {} };
  for (const parameter of operation.parameters) {
    if (parameter.example === undefined) {
      if (parameter.required) throw new Error(`${operation.operationId}: the required ${parameter.in} parameter ${parameter.name} has no example to show`);
      continue;
    }
    if (parameter.in === 'path' || (parameter.in === 'header' && parameter.required)) request[parameter.in][parameter.name] = parameter.example;
    else if (parameter.in === 'query' && (parameter.required || isChosenSetting(spec, parameter))) request.query[parameter.name] = parameter.example;
  }
  const json = operation.requestBody?.content['application/json'];
  if (json) {
    const first = Object.values(json.examples)[0];
    if (first === undefined && operation.requestBody?.required) throw new Error(`${operation.operationId}: the request body has no named example to show`);
    if (first !== undefined) request.body = first;
  }
  return request;
}

function isChosenSetting(spec: OpenApiDocument, parameter: ParameterContract): boolean {
  if (typeof parameter.example === 'number') return true;
  const schema = isObject(parameter.schema) ? deref(spec, parameter.schema) : {};
  return Array.isArray(schema['enum']) && schema['enum'].includes(parameter.example as Json);
}

/** The curl command and the typed client call for one operation of a contract. */
export function codeSamples(spec: OpenApiDocument, contract: string, operation: OperationContract): CodeSample[] {
  const client = clientSetup(contract);
  const baseUrl = defaultServerUrl(spec);
  const request = sampleRequest(spec, operation);
  return [
    { lang: SAMPLE_LANGUAGES.curl.lang, label: SAMPLE_LANGUAGES.curl.label, source: curlSample(spec, client, baseUrl, operation, request) },
    { lang: SAMPLE_LANGUAGES.client.lang, label: SAMPLE_LANGUAGES.client.label, source: clientSample(client, baseUrl, operation, request) },
  ];
}

function curlSample(spec: OpenApiDocument, client: ClientSetup, baseUrl: string, operation: OperationContract, request: SampleRequest): string {
  const query = new URLSearchParams(Object.entries(request.query).map(([name, value]) => [name, String(value)])).toString();
  const url = `${baseUrl}${fillPath(operation.path, request.path)}${query ? `?${query}` : ''}`;
  const lines = [`curl${operation.method === 'GET' ? '' : ` -X ${operation.method}`} ${shellQuote(url)}`];
  const scheme = operation.security[0];
  if (scheme !== undefined) lines.push(client.curlCredential(spec, scheme));
  for (const [name, value] of Object.entries(request.header)) lines.push(`-H ${shellQuote(`${name}: ${String(value)}`)}`);
  if (request.body !== undefined) lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(request.body))}`);
  return `${lines.join(' \\\n  ')}\n`;
}

function clientSample(client: ClientSetup, baseUrl: string, operation: OperationContract, request: SampleRequest): string {
  const params: JsonObject = {};
  for (const part of ['path', 'query', 'header'] as const) if (Object.keys(request[part]).length > 0) params[part] = request[part];
  const init: JsonObject = {};
  if (Object.keys(params).length > 0) init['params'] = params;
  if (request.body !== undefined) init['body'] = request.body;
  const args = [quote(operation.path), ...(Object.keys(init).length > 0 ? [tsLiteral(init)] : [])].join(', ');
  const name = client.factory === 'createApiClient' ? 'api' : 'account';
  return [
    `import { ${client.factory} } from '${client.module}';`,
    '',
    `const ${name} = ${client.factory}(${client.options(baseUrl)});`,
    `const { data, error } = await ${name}.${operation.method}(${args});`,
    'if (error) console.error(error.status, error.type, error.detail);',
    'else console.log(data);',
    '',
  ].join('\n');
}

function cookieName(spec: OpenApiDocument, scheme: string): string {
  const schemes = isObject(spec.components['securitySchemes']) ? spec.components['securitySchemes'] : {};
  const definition = isObject(schemes[scheme]) ? deref(spec, schemes[scheme]) : undefined;
  if (definition?.['in'] !== 'cookie' || typeof definition['name'] !== 'string') throw new Error(`security scheme ${scheme} is not a cookie`);
  return definition['name'];
}

function fillPath(template: string, values: Record<string, Json>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])));
}

/** Single-quoted for a POSIX shell: nothing inside is expanded. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

function quote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n')}'`;
}

/** A JSON value as a TypeScript literal in the project's style: single quotes, bare keys where they can be. */
export function tsLiteral(value: Json): string {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map(tsLiteral).join(', ')}]`;
  const entries = Object.entries(value).map(([key, entry]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : quote(key)}: ${tsLiteral(entry)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

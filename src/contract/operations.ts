import { deref, HTTP_METHODS, isObject, type Json, type JsonObject, type OpenApiDocument } from './spec.js';

/** A media type of a request or response, with its schema and named examples. */
export interface MediaContract {
  schema: Json;
  examples: Record<string, Json>;
}

export interface HeaderContract {
  required: boolean;
  schema: Json;
}

export interface ResponseContract {
  status: string;
  description: string;
  content: Record<string, MediaContract>;
  headers: Record<string, HeaderContract>;
}

export interface ParameterContract {
  name: string;
  in: string;
  required: boolean;
  /** The parameter's schema; for a parameter described by `content` instead, the schema of its one media type. */
  schema: Json;
  example?: Json;
  /** How the value is serialized (OpenAPI 3 §4.8.12.4), when the spec says. */
  style?: string;
  explode?: boolean;
  /** The media type of a parameter described by `content` (its value is serialized as that type, e.g. JSON). */
  mediaType?: string;
  /** Why the parameter rightly leaves the answer as it is (`x-no-effect`), if the spec says so. */
  noEffect?: string;
}

/**
 * The spec extension on a parameter or a body property that says why it rightly leaves the answer as it is (a header
 * read for logs or tracing): the contract suite then does not take "every value gave the same answer" for a handler
 * that forgot it.
 */
export const NO_EFFECT_EXTENSION = 'x-no-effect';

/** The reason an `x-no-effect` gives, if the object has one that is a non-empty string. */
export function noEffectOf(object: JsonObject): string | undefined {
  const reason = object[NO_EFFECT_EXTENSION];
  return typeof reason === 'string' && reason.trim() !== '' ? reason.trim() : undefined;
}

/** Everything the spec says about one operation, with `$ref`s followed. */
export interface OperationContract {
  operationId: string;
  /** Upper-case HTTP method. */
  method: string;
  /** Path template as written in the spec (`/`, `/shared`). */
  path: string;
  /** Names of the security schemes that apply (global or per operation). */
  security: string[];
  /**
   * The security requirements as the spec writes them: alternatives (any one will do), each a set of
   * schemes presented together. `[[]]` (an empty requirement) means the operation may be called without.
   */
  securityRequirements?: string[][];
  requestBody?: { required: boolean; content: Record<string, MediaContract> };
  parameters: ParameterContract[];
  responses: Record<string, ResponseContract>;
}

export interface ReadOptions {
  /**
   * What an operation without an `operationId` is called. This project's specs name every
   * operation (the server binds handlers by name), so by default one without is an error; a
   * foreign spec's is named `METHOD path`, as Schemathesis and the report name it.
   */
  nameless?: 'throw' | 'method-path';
}

/** Reads every operation of the spec into a plain, `$ref`-free description. */
export function readOperations(spec: OpenApiDocument, options: ReadOptions = {}): OperationContract[] {
  const operations: OperationContract[] = [];
  for (const [path, rawPathItem] of Object.entries(spec.paths)) {
    const pathItem = deref(spec, rawPathItem);
    for (const method of HTTP_METHODS) {
      const rawOperation = pathItem[method];
      if (rawOperation === undefined) continue;
      const operation = deref(spec, rawOperation);
      const named = operation['operationId'];
      if (typeof named !== 'string' && options.nameless !== 'method-path') throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const operationId = typeof named === 'string' ? named : `${method.toUpperCase()} ${path}`;
      const requirements = operation['security'] ?? spec['security'];
      const requestBody = operation['requestBody'] === undefined ? undefined : deref(spec, operation['requestBody']);
      operations.push({
        operationId,
        method: method.toUpperCase(),
        path,
        security: readSecurity(requirements),
        securityRequirements: readRequirements(requirements),
        ...(requestBody && {
          requestBody: { required: requestBody['required'] === true, content: readContent(spec, requestBody['content']) },
        }),
        parameters: readParameters(spec, [...asArray(pathItem['parameters']), ...asArray(operation['parameters'])]),
        // OpenAPI 3.1 makes `responses` optional.
        responses: operation['responses'] === undefined ? {} : readResponses(spec, deref(spec, operation['responses'])),
      });
    }
  }
  return operations;
}

function readSecurity(requirements: Json | undefined): string[] {
  return asArray(requirements).flatMap((requirement) => (isObject(requirement) ? Object.keys(requirement) : []));
}

function readRequirements(requirements: Json | undefined): string[][] {
  return asArray(requirements).map((requirement) => (isObject(requirement) ? Object.keys(requirement) : []));
}

/** The path item's parameters, then the operation's; one of the operation's replaces the path item's of the same name and place (OpenAPI 3 §4.8.10.1). */
function readParameters(spec: OpenApiDocument, raw: Json[]): ParameterContract[] {
  const byKey = new Map<string, ParameterContract>();
  for (const entry of raw) {
    const parameter = deref(spec, entry);
    const content = isObject(parameter['content']) ? Object.entries(parameter['content']) : [];
    const [mediaType, media] = content[0] ?? [];
    const schema = parameter['schema'] ?? (isObject(media) ? media['schema'] : undefined) ?? {};
    const example = parameter['example'] ?? firstExample(spec, parameter['examples']);
    const read: ParameterContract = {
      name: String(parameter['name']),
      in: String(parameter['in']),
      required: parameter['required'] === true,
      schema,
      ...(example !== undefined && { example }),
      ...(typeof parameter['style'] === 'string' && { style: parameter['style'] }),
      ...(typeof parameter['explode'] === 'boolean' && { explode: parameter['explode'] }),
      ...(mediaType !== undefined && { mediaType }),
      ...withNoEffect(noEffectOf(parameter)),
    };
    byKey.set(`${read.in} ${read.name}`, read);
  }
  return [...byKey.values()];
}

/** `{ noEffect }` when the spec gives a reason, else nothing (the field is optional, never `undefined`). */
export function withNoEffect(noEffect: string | undefined): { noEffect?: string } {
  return noEffect === undefined ? {} : { noEffect };
}

function firstExample(spec: OpenApiDocument, examples: Json | undefined): Json | undefined {
  const first = isObject(examples) ? Object.values(examples)[0] : undefined;
  return first === undefined ? undefined : deref(spec, first)['value'];
}

function readResponses(spec: OpenApiDocument, responses: JsonObject): Record<string, ResponseContract> {
  const result: Record<string, ResponseContract> = {};
  for (const [status, raw] of Object.entries(responses)) {
    const response = deref(spec, raw);
    const headers: Record<string, HeaderContract> = {};
    for (const [name, rawHeader] of Object.entries(isObject(response['headers']) ? response['headers'] : {})) {
      const header = deref(spec, rawHeader);
      headers[name] = { required: header['required'] === true, schema: header['schema'] ?? {} };
    }
    result[status] = {
      status,
      description: String(response['description'] ?? ''),
      content: readContent(spec, response['content']),
      headers,
    };
  }
  return result;
}

function readContent(spec: OpenApiDocument, raw: Json | undefined): Record<string, MediaContract> {
  const content: Record<string, MediaContract> = {};
  for (const [mediaType, rawMedia] of Object.entries(isObject(raw) ? raw : {})) {
    const media = deref(spec, rawMedia);
    const examples: Record<string, Json> = {};
    for (const [name, rawExample] of Object.entries(isObject(media['examples']) ? media['examples'] : {})) {
      const example = deref(spec, rawExample);
      if (example['value'] !== undefined) examples[name] = example['value'];
    }
    content[mediaType] = { schema: media['schema'] ?? {}, examples };
  }
  return content;
}

function asArray(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}

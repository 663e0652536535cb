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
  schema: Json;
  example?: Json;
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
  requestBody?: { required: boolean; content: Record<string, MediaContract> };
  parameters: ParameterContract[];
  responses: Record<string, ResponseContract>;
}

/** Reads every operation of the spec into a plain, `$ref`-free description. */
export function readOperations(spec: OpenApiDocument): OperationContract[] {
  const operations: OperationContract[] = [];
  for (const [path, rawPathItem] of Object.entries(spec.paths)) {
    const pathItem = deref(spec, rawPathItem);
    for (const method of HTTP_METHODS) {
      const rawOperation = pathItem[method];
      if (rawOperation === undefined) continue;
      const operation = deref(spec, rawOperation);
      const operationId = operation['operationId'];
      if (typeof operationId !== 'string') throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const requestBody = operation['requestBody'] === undefined ? undefined : deref(spec, operation['requestBody']);
      operations.push({
        operationId,
        method: method.toUpperCase(),
        path,
        security: readSecurity(operation['security'] ?? spec['security']),
        ...(requestBody && {
          requestBody: { required: requestBody['required'] === true, content: readContent(spec, requestBody['content']) },
        }),
        parameters: readParameters(spec, [...asArray(pathItem['parameters']), ...asArray(operation['parameters'])]),
        responses: readResponses(spec, deref(spec, operation['responses'])),
      });
    }
  }
  return operations;
}

function readSecurity(requirements: Json | undefined): string[] {
  return asArray(requirements).flatMap((requirement) => (isObject(requirement) ? Object.keys(requirement) : []));
}

function readParameters(spec: OpenApiDocument, raw: Json[]): ParameterContract[] {
  return raw.map((entry) => {
    const parameter = deref(spec, entry);
    return {
      name: String(parameter['name']),
      in: String(parameter['in']),
      required: parameter['required'] === true,
      schema: parameter['schema'] ?? {},
      ...(parameter['example'] !== undefined && { example: parameter['example'] }),
    };
  });
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

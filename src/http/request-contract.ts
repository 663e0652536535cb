import type { ValidateFunction } from 'ajv/dist/2020.js';
import { type ConnectionLimits, type Limits, readLimits } from '../contract/limits.js';
import { type OperationContract, type ParameterContract, readOperations } from '../contract/operations.js';
import { compileSpecSchema, createSpecAjv, describeErrors } from '../contract/schemas.js';
import { deref, type Json, type OpenApiDocument } from '../contract/spec.js';
import type { Violation } from '../contract/types.js';
import { coercerFor, type TextCoercer } from './text-values.js';

// The limits' types are derived from the schema of `x-limits`; the app and the Node entry take them from here.
export type { ConnectionLimits, Limits } from '../contract/limits.js';

/** Where a part of a request is read from; the contract's `Violation.in`. */
export type InputPart = Violation['in'];

/** One operation, with its request validators compiled from the spec's own schemas. */
export interface CompiledOperation extends OperationContract {
  /** The path as Hono's router writes it: `{id}` becomes `:id`. */
  routePath: string;
  /** Media types the request body may be sent as (empty when the operation takes no body). */
  bodyMediaTypes: string[];
  /** Validates the parsed body and fills in the schema's defaults; undefined when the operation takes no JSON body. */
  validateBody: ValidateFunction | undefined;
  /** Validates the query string read as an object; unknown parameters are violations. */
  validateQuery: ValidateFunction;
  /** Validates the path parameters read as an object; undefined when the path has none. */
  validatePath: ValidateFunction | undefined;
  /** Validates the declared headers (lower-case names) read as an object; undefined when none are declared. */
  validateHeaders: ValidateFunction | undefined;
  /** Lower-case names of the header parameters the operation declares. */
  headerNames: string[];
  /** How each path, query and header parameter's text becomes a typed value (by name; header names in lower case). */
  coercers: { path: ReadonlyMap<string, TextCoercer>; query: ReadonlyMap<string, TextCoercer>; header: ReadonlyMap<string, TextCoercer> };
}

/** Bounds the spec puts on what the server writes in a problem, so a problem always validates. */
export interface ProblemBounds {
  detail: number;
  instance: number;
  requestId: number;
  errors: number;
  pointer: number;
  violationDetail: number;
}

/** Everything the server reads from the spec at startup. */
export interface RequestContract {
  /** The document it was compiled from (the response validation compiles its own checks from it). */
  spec: OpenApiDocument;
  operations: CompiledOperation[];
  /** Methods the spec allows per path, for `405` and `Allow`. */
  methodsByPath: Map<string, string[]>;
  limits: Limits;
  connectionLimits: ConnectionLimits;
  problemBounds: ProblemBounds;
}

/**
 * Compiles the spec into request validators once, at startup. `contract` is its name in `redocly.yaml`
 * (`main`, `account`): its `x-limits` is then held to that contract's own variant of the schema, not only
 * to the general one.
 */
export function compileRequestContract(spec: OpenApiDocument, contract?: string): RequestContract {
  // Path, query and header values arrive as text; `coercers` turn them into typed values first (see text-values.ts).
  const bodyAjv = createSpecAjv(spec, { useDefaults: true });
  const textAjv = createSpecAjv(spec, { useDefaults: true });
  const coercersOf = (parameters: ParameterContract[], lowerCase = false) =>
    new Map(parameters.map((parameter) => [lowerCase ? parameter.name.toLowerCase() : parameter.name, coercerFor(spec, parameter.schema)]));
  const operations = readOperations(spec).map((operation): CompiledOperation => {
    const json = operation.requestBody?.content['application/json'];
    const pathParameters = parametersIn(operation, 'path');
    const headerParameters = parametersIn(operation, 'header');
    return {
      ...operation,
      routePath: toRoutePath(operation.path),
      bodyMediaTypes: Object.keys(operation.requestBody?.content ?? {}),
      validateBody: json ? compileSpecSchema(bodyAjv, json.schema) : undefined,
      validateQuery: compileSpecSchema(textAjv, objectSchema(parametersIn(operation, 'query'), { closed: true })),
      validatePath: pathParameters.length > 0 ? compileSpecSchema(textAjv, objectSchema(pathParameters, { closed: true })) : undefined,
      // Any request carries headers the spec does not list (Host, User-Agent...), so only the declared ones are checked.
      validateHeaders: headerParameters.length > 0 ? compileSpecSchema(textAjv, objectSchema(headerParameters, { closed: false, lowerCase: true })) : undefined,
      headerNames: headerParameters.map((parameter) => parameter.name.toLowerCase()),
      coercers: { path: coercersOf(pathParameters), query: coercersOf(parametersIn(operation, 'query')), header: coercersOf(headerParameters, true) },
    };
  });
  const methodsByPath = methodsOfPaths(operations);
  const { maxBodyBytes, rateLimit, failedAuthentication, headersTimeoutSeconds, requestTimeoutSeconds } = readLimits(spec, contract);
  return {
    spec,
    operations,
    methodsByPath,
    limits: { maxBodyBytes, rateLimit, failedAuthentication },
    connectionLimits: { headersTimeoutSeconds, requestTimeoutSeconds },
    problemBounds: readProblemBounds(spec),
  };
}

/** A spec path template as Hono's router writes it: `/items/{id}` becomes `/items/:id`. */
export function toRoutePath(specPath: string): string {
  return specPath.replace(/\{([^}]+)\}/g, ':$1');
}

function parametersIn(operation: OperationContract, where: InputPart): ParameterContract[] {
  return operation.parameters.filter((parameter) => parameter.in === where);
}

/** Parameters of one part of a request as one object schema; a closed one admits nothing else. */
function objectSchema(parameters: ParameterContract[], options: { closed: boolean; lowerCase?: boolean }): Json {
  const name = (parameter: ParameterContract) => (options.lowerCase ? parameter.name.toLowerCase() : parameter.name);
  return {
    type: 'object',
    ...(options.closed && { additionalProperties: false }),
    properties: Object.fromEntries(parameters.map((parameter) => [name(parameter), parameter.schema])),
    required: parameters.filter((parameter) => parameter.required).map(name),
  };
}

/** Ajv's errors as the contract's violations (bounded and scrubbed when the problem is written: `problemBody`). */
export function toViolations(where: InputPart, validate: ValidateFunction, bounds: ProblemBounds): Violation[] {
  return describeErrors(validate.errors)
    .slice(0, bounds.errors)
    .map((error) => ({ in: where, pointer: error.pointer, detail: error.detail }));
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function readProblemBounds(spec: OpenApiDocument): ProblemBounds {
  const schemas = deref(spec, spec.components['schemas']);
  const problem = deref(spec, deref(spec, schemas['Problem'])['properties']);
  const violation = deref(spec, deref(spec, schemas['Violation'])['properties']);
  const bound = (properties: Record<string, Json>, name: string, keyword: 'maxLength' | 'maxItems'): number => {
    const value = deref(spec, properties[name])[keyword];
    if (typeof value !== 'number') throw new Error(`the spec must bound ${name} with ${keyword}`);
    return value;
  };
  return {
    detail: bound(problem, 'detail', 'maxLength'),
    instance: bound(problem, 'instance', 'maxLength'),
    requestId: bound(problem, 'requestId', 'maxLength'),
    errors: bound(problem, 'errors', 'maxItems'),
    pointer: bound(violation, 'pointer', 'maxLength'),
    violationDetail: bound(violation, 'detail', 'maxLength'),
  };
}

/** The methods each path of the spec answers, `HEAD` wherever `GET` is (the `Allow` of a 405), sorted. */
export function methodsOfPaths(operations: readonly { path: string; method: string }[]): Map<string, string[]> {
  const methodsByPath = new Map<string, string[]>();
  for (const operation of operations) {
    const methods = methodsByPath.get(operation.path) ?? [];
    methods.push(operation.method);
    if (operation.method === 'GET') methods.push('HEAD');
    methodsByPath.set(operation.path, methods.sort());
  }
  return methodsByPath;
}

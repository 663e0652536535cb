/**
 * Compile-time view of the contract: every type here is taken from the generated
 * `paths` / `operations` / `components`, never written by hand, so a spec change
 * that the code does not follow fails `npm run typecheck`.
 *
 * The operation types are generic over an `operations` interface as
 * openapi-typescript writes it, so a second contract gets the same seam.
 */
import type { components, operations } from '../../generated/openapi.js';

export type { components, operations, paths } from '../../generated/openapi.js';

export type OperationId = keyof operations;
export type Schemas = components['schemas'];
export type Item = Schemas['Item'];
export type Sort = Schemas['Sort'];
export type Problem = Schemas['Problem'];
export type ProblemType = Schemas['ProblemType'];
export type Violation = Schemas['Violation'];

/** The shape openapi-typescript gives each entry of `operations`. */
export interface OperationShape {
  parameters: { query?: unknown; header?: unknown; path?: unknown; cookie?: unknown };
  requestBody?: unknown;
  responses: Record<number | string, unknown>;
}

/** `never` (the generator's "no such parameters") read as an empty object, so handlers can always destructure. */
type OrEmpty<T> = [T] extends [never] ? Record<string, never> : T;

type ParametersIn<Operation extends OperationShape, In extends keyof OperationShape['parameters']> = OrEmpty<NonNullable<Operation['parameters'][In]>>;

type JsonBodyOf<Operation extends OperationShape> = [NonNullable<Operation['requestBody']>] extends [never]
  ? undefined
  : NonNullable<Operation['requestBody']> extends { content: { 'application/json': infer Body } }
    ? Body
    : undefined;

/**
 * What a handler receives: every part of the request the spec declares for the
 * operation, read, coerced and validated against the spec's schemas (defaults
 * filled in). Parts the operation does not declare are empty objects (`body`:
 * `undefined`).
 */
export type InputOf<Operation extends OperationShape> = {
  path: ParametersIn<Operation, 'path'>;
  query: ParametersIn<Operation, 'query'>;
  headers: ParametersIn<Operation, 'header'>;
  body: JsonBodyOf<Operation>;
};

/**
 * The headers the kernel writes on answers itself, lower-cased: the request id and the rate limit's (`responseHeaders`
 * in src/http/response-headers.ts, which test/http/response-headers.test.ts holds to this list).
 */
export const KERNEL_HEADERS = ['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'] as const;
export type KernelHeader = (typeof KERNEL_HEADERS)[number];

/** The names of a response's documented headers that are required, but for the kernel's (in any case): the handler must send them. */
type RequiredHeadersOf<Response> = Response extends { headers: infer Headers } ? RequiredKeys<WithoutKernelHeaders<NamedOnly<Headers>>> : never;
type WithoutKernelHeaders<T> = { [Key in keyof T as Key extends string ? (Lowercase<Key> extends KernelHeader ? never : Key) : Key]: T[Key] };
/** A type without its index signature (the generator's `[name: string]: unknown`), its named keys kept as they are. */
type NamedOnly<T> = { [Key in keyof T as string extends Key ? never : number extends Key ? never : Key]: T[Key] };
type RequiredKeys<T> = { [Key in keyof T]-?: Partial<Pick<T, Key>> extends Pick<T, Key> ? never : Key }[keyof T];

/**
 * A handler's headers for one response: the documented required ones (a `Cache-Control` the spec demands), named in
 * lower case as the kernel writes every header, or any.
 */
type HeadersOf<Response> = [RequiredHeadersOf<Response>] extends [never]
  ? { headers?: Record<string, string> }
  : { headers: Record<Lowercase<RequiredHeadersOf<Response> & string>, string> & Record<string, string> };

/**
 * What a handler may answer: one of the statuses the spec documents for the
 * operation with a JSON body (or no body), that status's body type, and extra
 * headers, among them each required header the spec documents for that status
 * that the kernel does not write. Problems (`application/problem+json`) are not
 * returned but thrown as `ApiError`, so one writer puts every error in the one envelope.
 */
export type ResultOf<Operation extends OperationShape> = {
  [Status in keyof Operation['responses'] & number]: Operation['responses'][Status] extends { content: { 'application/json': infer Body } }
    ? { status: Status; body: Body } & HeadersOf<Operation['responses'][Status]>
    : Operation['responses'][Status] extends { content?: never }
      ? { status: Status; body?: undefined } & HeadersOf<Operation['responses'][Status]>
      : never;
}[keyof Operation['responses'] & number];

/** The input of one operation of this API's contract. */
export type OperationInput<Id extends OperationId> = InputOf<operations[Id]>;

/** The answers one operation of this API's contract may give from its handler. */
export type OperationResult<Id extends OperationId> = ResultOf<operations[Id]>;

type Responses<Id extends OperationId> = operations[Id]['responses'];

/** The JSON body an operation answers with for a given status. */
export type ResponseBody<Id extends OperationId, Status extends keyof Responses<Id>> = Responses<Id>[Status] extends {
  content: { 'application/json': infer Body };
}
  ? Body
  : never;

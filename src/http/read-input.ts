import { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { Violation } from '../contract/types.js';
import { type BodySource, isJsonContentType, parseJsonObject, readBody } from './json-body.js';
import { ApiError } from './problems.js';
import { type CompiledOperation, type InputPart, type ProblemBounds, toViolations } from './request-contract.js';
import { coerceTexts } from './text-values.js';
import { ILL_FORMED_DETAIL, illFormedStrings } from './well-formed-text.js';

/** Every part of a request the spec declares, read as objects and validated (defaults filled in). */
export interface RequestInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

/**
 * A value that passed its schema but not a check that needs more than the
 * schema (a cursor signed for another list, say). Thrown while the input is
 * turned into what a handler works with; the seam answers it as a `422` and
 * says itself which part of the request held the field, so no handler needs
 * to know how its input travelled.
 */
export class InputViolation extends Error {
  /** JSON pointer to the field inside its part (`/cursor`). */
  readonly pointer: string;

  constructor(pointer: string, detail: string) {
    super(detail);
    this.name = 'InputViolation';
    this.pointer = pointer;
  }
}

/**
 * Reads, parses and validates every part of the request against the operation's
 * contract, in the order the contract documents: the media type (415), the size
 * (413) and syntax (400) of the body, then every schema at once (422, one entry
 * per violation, each naming its part). A promise only when the body has still to
 * arrive (`readBody`): the usual request is read without one.
 */
export function readInput(c: Context, operation: CompiledOperation, maxBodyBytes: number, bounds: ProblemBounds): RequestInput | Promise<RequestInput> {
  // A body sent to an operation that takes none is refused, as a GET's is before any operation (listener.ts): ignored,
  // it would let a client believe what it sent was read. Only what the headers announce counts: a request without
  // Content-Length (or with 0) and without Transfer-Encoding carries none.
  if (operation.requestBody === undefined && announcesBody(c)) {
    throw new ApiError('urn:problem-type:malformed-request', UNEXPECTED_BODY_DETAIL);
  }
  const required = operation.requestBody?.required === true;
  if (!operation.validateBody || !(required || mayHaveBody(c.req.raw))) return validatedInput(c, operation, undefined, bounds, false);
  if (!isJsonContentType(c.req.header('content-type'), operation.bodyMediaTypes)) {
    throw new ApiError('urn:problem-type:unsupported-media-type', 'Send the body as `Content-Type: application/json`.');
  }
  const withBody = (bytes: Uint8Array) => validatedInput(c, operation, parseJsonObject(bytes, { optional: !required }), bounds, mayHoldEscapes(bytes));
  const bytes = readBody(bodySource(c), maxBodyBytes);
  return bytes instanceof Promise ? bytes.then(withBody) : withBody(bytes);
}

/** Every part of the request, the body already parsed, checked against its schema; a 422 listing every violation. */
function validatedInput(
  c: Context,
  operation: CompiledOperation,
  body: Record<string, unknown> | undefined,
  bounds: ProblemBounds,
  /** Whether the body's text may hold a lone surrogate (`mayHoldEscapes`); false when there is no body. */
  escaped: boolean,
): RequestInput {
  const { coercers } = operation;
  const input: RequestInput = {
    path: operation.validatePath ? coerceTexts(c.req.param(), coercers.path) : {},
    query: coerceTexts(readQuery(c), coercers.query),
    headers: coerceTexts(readHeaders(c, operation.headerNames), coercers.header),
    body,
  };

  const violations: Violation[] = [];
  if (operation.validatePath && !operation.validatePath(input.path)) violations.push(...toViolations('path', operation.validatePath, bounds));
  if (!operation.validateQuery(input.query)) violations.push(...toViolations('query', operation.validateQuery, bounds));
  if (operation.validateHeaders && !operation.validateHeaders(input.headers)) violations.push(...toViolations('header', operation.validateHeaders, bounds));
  if (body && operation.validateBody && !operation.validateBody(body)) violations.push(...toViolations('body', operation.validateBody, bounds));
  if (body && escaped) for (const pointer of illFormedStrings(body)) violations.push({ in: 'body', pointer, detail: ILL_FORMED_DETAIL });
  if (violations.length > 0) throw validationFailed(violations, bounds);
  return input;
}

/**
 * Whether the body has a backslash, without which it holds no `\u` escape. The bytes were decoded as UTF-8 with
 * errors fatal, so a lone surrogate can only have come from an escape (`"\ud800"`): a body without one needs no walk.
 */
function mayHoldEscapes(bytes: Uint8Array): boolean {
  return bytes.indexOf(BACKSLASH) !== -1;
}

const BACKSLASH = 0x5c;

/** The `422` for a violation found after the schemas passed, located in the part of the input that holds its field. */
export function locateViolation(violation: InputViolation, input: RequestInput, bounds: ProblemBounds): ApiError {
  const field = decodeURIComponent(violation.pointer.split('/')[1] ?? '')
    .replaceAll('~1', '/')
    .replaceAll('~0', '~');
  const parts: InputPart[] = ['path', 'query', 'header', 'body'];
  const where = parts.find((part) => {
    const values = part === 'header' ? input.headers : input[part];
    return values !== undefined && Object.hasOwn(values, field);
  });
  if (!where) throw new Error(`an InputViolation names ${violation.pointer}, which is in no part of the request`);
  return validationFailed([{ in: where, pointer: violation.pointer, detail: violation.message }], bounds);
}

function validationFailed(violations: Violation[], bounds: ProblemBounds): ApiError {
  const count = violations.length === 1 ? '1 place' : `${violations.length} places`;
  return new ApiError('urn:problem-type:validation-failed', `The request breaks the contract in ${count}.`, { errors: violations.slice(0, bounds.errors) });
}

/** Node's request when the adapter passes it (`c.env.incoming`, on @hono/node-server), else the web `Request`. */
function bodySource(c: Context): BodySource {
  const incoming: unknown = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : c.req.raw;
}

/**
 * Whether a body was sent. On the wire only what the headers announce counts (a Content-Length other than 0, or a
 * Transfer-Encoding): Node's request stands for a body stream on every POST and DELETE. A Request made in-process
 * (tests, other runtimes) carries one exactly when it has a body.
 */
function announcesBody(c: Context): boolean {
  const request = c.req.raw;
  return bodySource(c) instanceof IncomingMessage ? headersAnnounceBody(request.headers) : mayHaveBody(request);
}

/** Whether HTTP/1.1 headers frame a body: a Content-Length other than 0, or a Transfer-Encoding. */
export function headersAnnounceBody(headers: Headers): boolean {
  const length = headers.get('content-length');
  return (length !== null && length !== '0') || headers.has('transfer-encoding');
}

/** Why a body sent to an operation that takes none is refused (`400` `malformed-request`), by the server and the mock. */
export const UNEXPECTED_BODY_DETAIL = 'This operation takes no request body; send the request without one.';

/**
 * Whether an optional body may be there. On the wire HTTP/1.1 frames a body by Content-Length or
 * Transfer-Encoding; a Request made in-process (tests, other runtimes) may carry one without either.
 */
function mayHaveBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length !== null) return length !== '0';
  return request.headers.has('transfer-encoding') || request.body !== null;
}

/** The query string as an object: one value stays a string, a repeated name becomes an array (which the schema then rejects). */
function readQuery(c: Context): Record<string, unknown> {
  if (!c.req.url.includes('?')) return {};
  return Object.fromEntries(Object.entries(c.req.queries()).map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
}

/** The declared headers only, by lower-case name; an absent header is left out so `required` can catch it. */
function readHeaders(c: Context, names: readonly string[]): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const name of names) {
    const value = c.req.header(name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

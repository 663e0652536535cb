import { type OperationContract, withNoEffect } from '../contract/operations.js';
import { deref, isObject, type Json, type OpenApiDocument } from '../contract/spec.js';
import { bodyFields } from './body-fields.js';
import type { LiveValue, Location, RequestInput } from './case.js';
import type { Credentials } from './credentials.js';
import type { Field } from './field.js';
import { type ListShape, listShape } from './list-shape.js';
import type { Rules } from './rules.js';
import { componentName, componentsIn, resolveSchema } from './values/schema-refs.js';
import type { SchemaValues } from './values/schema-values.js';
import { requestMediaType, unwritableMediaTypes } from './wire/body.js';

/** Methods whose request the suite sends without a body, whatever the spec says. */
const BODILESS_METHODS = new Set(['GET', 'HEAD']);
/** HTTP methods that only read (RFC 9110 §9.2.1). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The spec extension that declares an operation with an unsafe method to be a read (the list POSTs). */
export const READ_ONLY_EXTENSION = 'x-read-only';

export type { Field } from './field.js';

/** What the families read about one operation, read from the spec once. */
export interface OperationFacts {
  operation: OperationContract;
  fields: Field[];
  /** The request body the suite writes (JSON, or a form), if the operation takes one. */
  body?: { mediaType: string; schema: Json; closed: boolean; examples: Record<string, Json> };
  /**
   * Why no valid request can be sent (no credential for its security scheme, a body in a media
   * type the suite cannot write): every case but the refused credentials is then skipped with it.
   */
  blocked?: string;
  /** What the suite does not send of what the operation takes, and why (a body in a media type it cannot write). */
  notes: string[];
  /** The lowest documented 2xx: what a positive case expects. */
  success?: number;
  /** Why positive cases may not be sent (they could write); undefined when they may. */
  unsafe?: string;
  /** Set for list operations (a page with `items` and `nextCursor`). */
  list?: ListShape;
  /** A valid request with only the required fields. */
  baseline: RequestInput;
  /** The values of the baseline that must come from the API when the case runs (existing ids). */
  live: LiveValue[];
  /** Optional fields whose value is a continuation token from the operation's own answer (a cursor), by name. */
  continuations: Map<string, LiveValue>;
}

export interface FactsOptions {
  /** Send positive cases of operations that may write too (for a disposable deployment). */
  allowWrites?: boolean;
  /** The conventions the spec turns on (`rules.ts`); none by default. */
  rules?: Rules;
  /** The run's credentials: an operation whose scheme has none is blocked. */
  credentials?: Credentials;
}

/** Whether the operation documents this status, exactly or as a range (`4XX`). A `default` answer does not count: it names no status to expect. */
export function documents(operation: OperationContract, status: number): boolean {
  const text = String(status);
  return text in operation.responses || `${text[0]}XX` in operation.responses;
}

/** Reads the facts of every operation. Components that some operation answers with can be harvested for others. */
export function readFacts(spec: OpenApiDocument, operations: OperationContract[], values: SchemaValues, options: FactsOptions = {}): OperationFacts[] {
  const answered = new Set<string>();
  for (const operation of operations) for (const schema of successSchemas(operation)) componentsIn(spec, schema, answered);
  return operations.map((operation) => factsOf(spec, operation, values, answered, options));
}

/** `{ component }` when there is one, else nothing (the field is optional, never `undefined`). */
function withComponent(component: string | undefined): { component?: string } {
  return component === undefined ? {} : { component };
}

function factsOf(spec: OpenApiDocument, operation: OperationContract, values: SchemaValues, answered: Set<string>, options: FactsOptions): OperationFacts {
  const fields: Field[] = operation.parameters
    .filter((parameter) => ['path', 'query', 'header', 'cookie'].includes(parameter.in))
    .map(
      (parameter): Field => ({
        location: parameter.in as Location,
        name: parameter.name,
        // A path parameter is always required (OpenAPI 3.1 §4.8.12.1).
        required: parameter.required || parameter.in === 'path',
        schema: parameter.schema,
        resolved: resolveSchema(spec, parameter.schema),
        ...withComponent(componentName(parameter.schema)),
        ...(parameter.example !== undefined && { example: parameter.example }),
        ...withNoEffect(parameter.noEffect),
      }),
    );
  // fetch (and most clients) cannot send a body with GET or HEAD, so such an operation is called without one.
  const bodiless = BODILESS_METHODS.has(operation.method);
  const mediaType = bodiless ? undefined : requestMediaType(operation);
  const media = mediaType === undefined ? undefined : operation.requestBody?.content[mediaType];
  let body: OperationFacts['body'];
  if (media && mediaType !== undefined) {
    // Read through `allOf`, `oneOf` and `anyOf`, read-only properties left out (`body-fields.ts`).
    const read = bodyFields(spec, values, media.schema);
    fields.push(...read.fields);
    body = { mediaType, schema: read.schema, closed: read.closed, examples: media.examples };
  }

  const own = new Set<string>();
  for (const schema of successSchemas(operation)) componentsIn(spec, schema, own);
  const continuations = new Map<string, LiveValue>();
  const live: LiveValue[] = [];
  const minimalBody = body ? values.minimal(body.schema) : undefined;
  const baseline: RequestInput = { path: {}, query: {}, headers: {}, ...(minimalBody !== undefined && { body: minimalBody }) };
  for (const field of fields) {
    // Without a valid body to start from, the body's fields are not set one by one: the result would be a body nobody validated.
    if (field.location === 'body' && body && minimalBody === undefined) continue;
    // A field of one alternative of the body is varied in a body of its own alternative, never set in the baseline's.
    if (field.branch !== undefined) continue;
    const fallbacks = [...new Set([field.example, values.one(field.schema, field.example)])].filter((value): value is Json => value !== undefined);
    if (!field.required) {
      // An optional field of a component the operation itself answers with is a continuation token (a cursor): only its own answer can give one.
      if (options.rules?.has('paged-lists') && field.component !== undefined && own.has(field.component)) {
        continuations.set(field.name, { location: field.location, name: field.name, component: field.component, source: 'previous-page', fallbacks: [] });
      }
      continue;
    }
    // A required field of a component some answer carries (an `ItemId`) takes a value the API made, so the request is about something that exists.
    if (field.component !== undefined && answered.has(field.component)) {
      live.push({ location: field.location, name: field.name, component: field.component, source: 'seen', fallbacks });
    } else if (field.location === 'path' && SAFE_METHODS.has(operation.method)) {
      // A path parameter of a read that no answer carries (an inline `format: uuid`) still names something of the API's; none can be
      // seen, so the spec's example is sent, and a 404 for it proves nothing either way (`exampleIdMissing`), as for an `ItemId`.
      // (A write's 404, such as a second DELETE's, is judged as its answer.)
      live.push({
        location: field.location,
        name: field.name,
        component: field.component ?? `${operation.operationId} path ${field.name}`,
        source: 'seen',
        fallbacks,
      });
    }
    const value = fallbacks[0];
    if (value === undefined) continue;
    if (field.location === 'body') baseline.body = { ...(isObject(baseline.body) ? baseline.body : {}), [field.name]: value };
    else if (field.location === 'cookie') baseline.cookie = { ...baseline.cookie, [field.name]: value };
    else (field.location === 'header' ? baseline.headers : baseline[field.location])[field.name] = value;
  }

  // A range (`2XX`), or only a `default` answer, stands for 200; any 2xx is accepted anyway (`statusMatches`).
  const documentedSuccess = Object.keys(operation.responses)
    .map((status) => (status === '2XX' ? 200 : Number(status)))
    .filter((status) => status >= 200 && status < 300)
    .sort((a, b) => a - b)[0];
  const success = documentedSuccess ?? fallbackSuccess(operation);
  const notes: string[] = [];
  const unwritable = unwritableMediaTypes(operation);
  if (operation.requestBody && bodiless) notes.push(`its request body is never sent: fetch cannot send a body with ${operation.method}`);
  else if (operation.requestBody && !body)
    notes.push(`its request body is never sent: the suite cannot write ${unwritable.join(', ')} (it writes JSON and forms)`);
  else if (body && minimalBody === undefined && !operation.requestBody?.required)
    notes.push('its optional body is not sent: no valid body could be generated from its schema, and the spec gives no example that validates');
  else if (unwritable.length > 0) notes.push(`the body is sent as ${body?.mediaType}, never as ${unwritable.join(', ')}, which the suite cannot write`);
  const facts: OperationFacts = {
    operation,
    fields,
    ...(body && { body }),
    ...(success !== undefined && { success }),
    baseline,
    live,
    continuations,
    notes,
  };
  const unsafe = unsafeReason(spec, operation, options);
  if (unsafe) facts.unsafe = unsafe;
  const blocked =
    blockedReason(operation, options) ??
    (body && minimalBody === undefined && operation.requestBody?.required
      ? 'skipped: no valid body could be generated from its schema (or its schema cannot be compiled), and the spec gives no example that validates'
      : undefined);
  if (blocked) facts.blocked = blocked;
  const list = options.rules?.has('paged-lists') ? listShape(spec, facts) : undefined;
  if (list) facts.list = list;
  return facts;
}

/**
 * What a valid request expects when no 2xx is documented: the lowest documented 3xx (the suite
 * does not follow redirects), else 200 when only `default` or nothing at all is documented (any
 * 2xx will do), else the one status the operation documents (an endpoint that always answers 404).
 */
function fallbackSuccess(operation: OperationContract): number | undefined {
  const statuses = Object.keys(operation.responses);
  const numbers = statuses
    .map(Number)
    .filter(Number.isInteger)
    .sort((a, b) => a - b);
  const redirect = numbers.find((status) => status >= 300 && status < 400);
  if (redirect !== undefined) return redirect;
  if (numbers.length === 0) return 200;
  return numbers.length === 1 ? numbers[0] : undefined;
}

function blockedReason(operation: OperationContract, options: FactsOptions): string | undefined {
  const missing = options.credentials?.requirementOf(operation)?.missing ?? [];
  if (missing.length > 0) return `skipped: ${missing.join('; ')}`;
  const unwritable = unwritableMediaTypes(operation);
  if (operation.requestBody?.required && BODILESS_METHODS.has(operation.method))
    return `skipped: ${operation.method} with a required body, which fetch cannot send (RFC 9110 §9.3.1 gives such a body no meaning)`;
  if (operation.requestBody?.required && requestMediaType(operation) === undefined)
    return `skipped: the operation takes a body only as ${unwritable.join(', ')}, which the suite cannot write (it writes JSON and forms)`;
  return undefined;
}

/** Whether the operation may write: an unsafe method (RFC 9110 §9.2.1) the spec does not mark `x-read-only: true`. */
export function mayWrite(spec: OpenApiDocument, operation: OperationContract): boolean {
  if (SAFE_METHODS.has(operation.method)) return false;
  const raw = deref(spec, deref(spec, spec.paths[operation.path])[operation.method.toLowerCase()]);
  return raw[READ_ONLY_EXTENSION] !== true;
}

function unsafeReason(spec: OpenApiDocument, operation: OperationContract, options: FactsOptions): string | undefined {
  if (!mayWrite(spec, operation) || options.allowWrites) return undefined;
  return `skipped for safety: ${operation.method} may write, and the spec does not mark ${operation.operationId} \`${READ_ONLY_EXTENSION}: true\` (--allow-writes sends it anyway, for a disposable deployment)`;
}

function successSchemas(operation: OperationContract): Json[] {
  return Object.entries(operation.responses)
    .filter(([status]) => status.startsWith('2'))
    .flatMap(([, response]) => Object.values(response.content).map((media) => media.schema));
}

import type { ObservedResponse } from '../contract/response-checker.js';
import type { Json } from '../contract/spec.js';
import type { OperationContract } from '../contract/operations.js';
import type { RequestInput, SuiteCase } from './case.js';
import type { Placement } from './credentials.js';

/** A request exactly as the suite sends it. */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** One request and what came back (or why nothing did). */
export interface Exchange {
  request: SentRequest;
  response?: ObservedResponse;
  /** Set when no response arrived (connection refused, timeout). */
  failure?: string;
}

export interface Transport {
  baseUrl: string;
  /** The caller's credential: an API key, or a session token for a cookie-authenticated API. */
  token: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  /** Where each operation's credential goes (`placementOf`); without it, every operation takes a bearer token. */
  placementOf?: (operation: OperationContract) => Placement | undefined;
}

/**
 * Puts a case's input on the wire: path parameters into the template, the query
 * string, header parameters, the caller's credential where the operation's
 * security scheme puts it (none for `security: []`), and the JSON body with its
 * content type. Overrides replace any part of that (a missing key or cookie, a
 * raw body, another method or path).
 */
export function buildRequest(transport: Transport, entry: Pick<SuiteCase, 'operation' | 'overrides'>, input: RequestInput): SentRequest {
  const { operation, overrides } = entry;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name] = wireText(value);
  const placement = transport.placementOf ? transport.placementOf(operation) : { kind: 'bearer' as const };
  const authorization = overrides.authorization === undefined ? (placement?.kind === 'bearer' ? `Bearer ${transport.token}` : null) : overrides.authorization;
  if (authorization !== null) headers['Authorization'] = authorization;
  if (placement?.kind === 'cookie') {
    const cookie = overrides.cookie === undefined ? `${placement.name}=${transport.token}` : overrides.cookie;
    if (cookie !== null) headers['Cookie'] = cookie;
  }
  if (placement?.kind === 'header' && overrides.authorization === undefined) headers[placement.name] = transport.token;
  const path =
    overrides.path ??
    operation.path.replace(/\{([^}]+)\}/g, (template, name: string) =>
      name in input.path ? encodeURIComponent(wireText(input.path[name] as Json)) : template,
    );
  let url = joinUrl(transport.baseUrl, path);
  const query = new URLSearchParams(Object.entries(input.query).map(([name, value]) => [name, wireText(value)])).toString();
  if (query) url += `?${query}`;
  const body = overrides.body ?? (input.body !== undefined && overrides.path === undefined ? JSON.stringify(input.body) : undefined);
  const contentType = overrides.contentType === undefined ? (body !== undefined ? 'application/json' : null) : overrides.contentType;
  if (contentType !== null) headers['Content-Type'] = contentType;
  return { method: overrides.method ?? operation.method, url, headers, ...(body !== undefined && { body }) };
}

/** A value as text on the wire: strings as they are, anything else as JSON (`2`, `true`). */
function wireText(value: Json): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Sends a request; never throws (a transport failure is part of the answer). */
export async function send(transport: Transport, request: SentRequest): Promise<Exchange> {
  try {
    const response = await transport.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(transport.timeoutMs),
      ...(request.body !== undefined && { body: request.body }),
    });
    const body = request.method === 'HEAD' ? '' : await response.text();
    return { request, response: { status: response.status, headers: response.headers, body } };
  } catch (error) {
    return { request, failure: describeFailure(error, transport.timeoutMs) };
  }
}

/** `base` without trailing slashes, then the path (`/`, `/shared`, `/items/itm_…`). */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

/** The request as a curl command, with the caller's key replaced by `$API_KEY`. */
export function toCurl(request: SentRequest, token: string): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const parts = ['curl', '-i', '-X', request.method, quote(request.url)];
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', quote(`${name}: ${redact(value, token)}`));
  if (request.body !== undefined) parts.push('--data-raw', quote(request.body.length > 200 ? `${request.body.slice(0, 200)}…` : request.body));
  return parts.join(' ');
}

/** The request with the caller's key replaced by `$API_KEY`, for reports. */
export function redactRequest(request: SentRequest, token: string): SentRequest {
  return { ...request, headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, redact(value, token)])) };
}

function redact(value: string, token: string): string {
  return token ? value.replaceAll(token, '$API_KEY') : value;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

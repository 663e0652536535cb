import type { ObservedResponse } from '../contract/response-checker.js';
import type { RequestInput, SuiteCase } from './case.js';
import type { Credentials, CredentialWire } from './credentials.js';
import { presentAlternative } from './security-alternatives.js';
import { acceptHeader, requestMediaType, writeBody } from './wire/body.js';
import { serializeHeader, serializePairs, serializePath } from './wire/parameters.js';

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
  /** From sending the request to the end of the answer's body. */
  elapsedMs?: number;
}

export interface Transport {
  baseUrl: string;
  /** The run's credentials, placed per security scheme. */
  credentials: Credentials;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
}

/**
 * Puts a case's input on the wire as the spec serializes it: path, query, header and cookie
 * parameters by their `style` and `explode` (`wire/parameters.ts`), the operation's credentials
 * where its security schemes put them, an `Accept` header naming its answers' media types, and
 * the body in the media type it takes (JSON, a form; `wire/body.ts`). Overrides replace any part
 * of that (no credential or another one, a raw body, another content type, method or path).
 */
export function buildRequest(transport: Transport, entry: Pick<SuiteCase, 'operation' | 'overrides'>, input: RequestInput): SentRequest {
  const { operation, overrides } = entry;
  const parameter = (location: string, name: string) =>
    operation.parameters.find((candidate) => candidate.in === location && candidate.name === name) ?? { name, in: location, required: false, schema: {} };
  const wire: CredentialWire = { headers: {}, query: [], cookies: [] };
  for (const [name, value] of Object.entries(input.headers)) wire.headers[name] = serializeHeader(parameter('header', name), value);
  for (const [name, value] of Object.entries(input.query)) wire.query.push(...serializePairs(parameter('query', name), value));
  for (const [name, value] of Object.entries(input.cookie ?? {})) wire.cookies.push(...serializePairs(parameter('cookie', name), value));
  if (overrides.credentials !== 'none') {
    if (overrides.security) presentAlternative(transport.credentials, overrides.security, wire, overrides.credentials);
    else transport.credentials.apply(operation, wire, overrides.credentials);
  }
  const headers = wire.headers;
  if (overrides.authorization === null) delete headers['Authorization'];
  else if (overrides.authorization !== undefined) headers['Authorization'] = overrides.authorization;
  const cookie = overrides.cookie === undefined ? cookieHeader(wire.cookies) : overrides.cookie;
  if (cookie !== null && cookie !== '') headers['Cookie'] = cookie;

  const path =
    overrides.path ??
    operation.path.replace(/\{([^}]+)\}/g, (template, name: string) =>
      name in input.path ? serializePath(parameter('path', name), input.path[name] ?? null) : template,
    );
  let url = joinUrl(transport.baseUrl, path);
  const query = wire.query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  if (query) url += `?${query}`;

  let body = overrides.body;
  let contentType: string | null | undefined;
  if (body === undefined && input.body !== undefined && overrides.path === undefined) {
    const written = writeBody(requestMediaType(operation) ?? 'application/json', input.body);
    body = written.body;
    contentType = written.contentType;
  } else if (body !== undefined) contentType = requestMediaType(operation) ?? 'application/json';
  if (overrides.contentType !== undefined) contentType = overrides.contentType;
  if (contentType !== null && contentType !== undefined) headers['Content-Type'] = contentType;
  const accept = overrides.path === undefined ? acceptHeader(operation) : undefined;
  if (accept !== undefined && !('Accept' in headers)) headers['Accept'] = accept;
  return { method: overrides.method ?? operation.method, url, headers, ...(body !== undefined && { body }) };
}

function cookieHeader(cookies: Array<[string, string]>): string {
  return cookies.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
}

/** Sends a request; never throws (a transport failure is part of the answer). */
export async function send(transport: Transport, request: SentRequest): Promise<Exchange> {
  const started = performance.now();
  try {
    const response = await transport.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(transport.timeoutMs),
      ...(request.body !== undefined && { body: request.body }),
    });
    const body = request.method === 'HEAD' ? '' : await response.text();
    return { request, response: { status: response.status, headers: response.headers, body }, elapsedMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { request, failure: describeFailure(error, transport.timeoutMs) };
  }
}

/** `base` without trailing slashes, then the path (`/`, `/shared`, `/items/itm_…`). */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}

/** The request as a curl command, with every secret replaced by its label (`$API_KEY`, `$CREDENTIAL_<scheme>`). */
export function toCurl(request: SentRequest, secrets: Array<[string, string]>): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const parts = ['curl', '-i', '-X', request.method, quote(redact(request.url, secrets))];
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', quote(`${name}: ${redact(value, secrets)}`));
  if (request.body !== undefined) {
    const body = redact(request.body, secrets);
    parts.push('--data-raw', quote(body.length > 200 ? `${body.slice(0, 200)}…` : body));
  }
  return parts.join(' ');
}

/** The request with every secret replaced by its label, for reports. */
export function redactRequest(request: SentRequest, secrets: Array<[string, string]>): SentRequest {
  return {
    ...request,
    url: redact(request.url, secrets),
    headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, redact(value, secrets)])),
    ...(request.body !== undefined && { body: redact(request.body, secrets) }),
  };
}

function redact(value: string, secrets: Array<[string, string]>): string {
  let text = value;
  for (const [secret, label] of secrets) text = text.replaceAll(secret, label);
  return text;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

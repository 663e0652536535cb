import type { ObservedResponse } from '../contract/response-checker.js';
import type { ListOptions, SuiteCase } from './cases.js';

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
  token: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
}

/** Builds the request of a case for the given options (the case's own, or with a live cursor). */
export function buildRequest(transport: Transport, entry: Pick<SuiteCase, 'operation' | 'overrides'>, options: ListOptions): SentRequest {
  const { operation, overrides } = entry;
  const headers: Record<string, string> = {};
  const authorization = overrides.authorization === undefined ? `Bearer ${transport.token}` : overrides.authorization;
  if (authorization !== null) headers['Authorization'] = authorization;
  let url = joinUrl(transport.baseUrl, operation.path);
  let body: string | undefined;
  if (operation.requestBody) {
    body = overrides.body ?? JSON.stringify(options);
    const contentType = overrides.contentType === undefined ? 'application/json' : overrides.contentType;
    if (contentType !== null) headers['Content-Type'] = contentType;
  } else {
    const query = new URLSearchParams(Object.entries(options).map(([name, value]) => [name, String(value)])).toString();
    if (query) url += `?${query}`;
    if (overrides.contentType) headers['Content-Type'] = overrides.contentType;
  }
  return { method: operation.method, url, headers, ...(body !== undefined && { body }) };
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

/** `base` without trailing slashes, then the spec path (`/`, `/shared`). */
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

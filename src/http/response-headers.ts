import { randomUUID } from 'node:crypto';
import { looksLikeApiKey } from '../keys/api-key.js';
import type { Quota } from './kernel-env.js';

/**
 * The response headers the OWASP REST Security Cheat Sheet asks of a JSON API,
 * on every answer. Browser-page extras (X-XSS-Protection, X-Download-Options,
 * Origin-Agent-Cluster, ...) are left out: this service serves no HTML.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

const REQUEST_ID = /^[\w\-=]+$/;

/** The server's own id for a request: sent as `X-Request-Id` and in every problem, and logged. */
export function newRequestId(): string {
  return randomUUID();
}

/**
 * A caller's `X-Request-Id`, kept only to be logged beside the server's own id
 * (never echoed, never used as the request's id): short and plain, and not
 * shaped like an API key, which a client could otherwise plant in the log.
 */
export function clientRequestId(incoming: string | undefined, maxLength: number): string | undefined {
  if (!incoming || incoming.length > maxLength || !REQUEST_ID.test(incoming)) return undefined;
  return looksLikeApiKey(incoming) ? undefined : incoming;
}

/**
 * Every header of an answer, as one plain object. Building it in one go, rather
 * than setting headers one by one on a web `Headers`, keeps @hono/node-server on
 * its fast path (measured: about a third of this server's CPU per request).
 */
export function responseHeaders(
  contentType: string | undefined,
  requestId: string,
  quota: Quota | undefined,
  extra?: Readonly<Record<string, string>>,
): Record<string, string> {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...SECURITY_HEADERS };
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (quota) {
    headers['ratelimit-limit'] = String(quota.limit);
    headers['ratelimit-remaining'] = String(quota.remaining);
    headers['ratelimit-reset'] = String(quota.resetSeconds);
  }
  if (extra) for (const name in extra) headers[name.toLowerCase()] = extra[name] as string;
  return headers;
}

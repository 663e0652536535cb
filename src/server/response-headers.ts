import { randomUUID } from 'node:crypto';
import type { Quota } from './rate-limit.js';

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

/** Keeps a caller's `X-Request-Id` when it is short and plain (as hono/request-id does), else makes one. */
export function requestIdFor(incoming: string | undefined, maxLength: number): string {
  return incoming && incoming.length <= maxLength && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Every header of an answer, as one plain object. Building it in one go, rather
 * than setting headers one by one on a web `Headers`, keeps @hono/node-server on
 * its fast path (measured: about a third of this server's CPU per request).
 */
export function responseHeaders(contentType: string | undefined, requestId: string, quota: Quota | undefined, extra?: Readonly<Record<string, string>>): Record<string, string> {
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

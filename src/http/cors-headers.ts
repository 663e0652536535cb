/**
 * The header lists of the public API's CORS answers, read from the spec, so a
 * header the contract adds is allowed and exposed without a second list:
 *
 * - the request headers a page on an allowed origin may send are the ones the
 *   contract reads: each security scheme's header (`Authorization` for HTTP
 *   schemes, an API key's own header), `Content-Type` when an operation takes a
 *   body, and every header parameter; and `Prefer` (RFC 7240), which the mock honours
 *   to pick an example or a status and the server ignores, as the RFC asks of a
 *   preference a server does not support: a page built against the mock still reaches
 *   the server, and the client tells its developer that `Prefer` went unheeded (it sees
 *   no `Preference-Applied`) instead of the browser's bare "Failed to fetch" (ADR 0032).
 * - the response headers its script may read are every header the spec declares
 *   on an answer (`RateLimit-*`, `Retry-After`, `WWW-Authenticate`, `X-Request-Id`).
 */
import type { OperationContract } from '../contract/operations.js';
import { deref, isObject, type OpenApiDocument } from '../contract/spec.js';

/** Request headers a cross-origin page may send: those the contract reads. */
export function corsAllowedRequestHeaders(spec: OpenApiDocument, operations: readonly OperationContract[]): string[] {
  const names: string[] = [];
  const schemes = isObject(spec.components['securitySchemes']) ? spec.components['securitySchemes'] : {};
  for (const name of new Set(operations.flatMap((operation) => operation.security))) {
    const scheme = schemes[name] === undefined ? undefined : deref(spec, schemes[name]);
    if (scheme?.['type'] === 'http' || scheme?.['type'] === 'oauth2' || scheme?.['type'] === 'openIdConnect') names.push('Authorization');
    else if (scheme?.['type'] === 'apiKey' && scheme['in'] === 'header' && typeof scheme['name'] === 'string') names.push(scheme['name']);
  }
  if (operations.some((operation) => operation.requestBody !== undefined)) names.push('Content-Type');
  for (const operation of operations) for (const parameter of operation.parameters) if (parameter.in === 'header') names.push(parameter.name);
  names.push('Prefer');
  return unique(names);
}

/** Response headers a cross-origin page may read: every header an answer of the contract declares. */
export function corsExposedResponseHeaders(operations: readonly OperationContract[]): string[] {
  return unique(operations.flatMap((operation) => Object.values(operation.responses).flatMap((response) => Object.keys(response.headers))));
}

/** Each header once, as the spec first spells it (header names compare without case). */
function unique(names: string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => !seen.has(name.toLowerCase()) && seen.add(name.toLowerCase()));
}

import type { OperationContract } from '../contract/operations.js';
import { deref, isObject, type OpenApiDocument } from '../contract/spec.js';

/**
 * Where an operation's credential goes on the wire, read from its security
 * scheme: an `Authorization: Bearer` token (the public API), a cookie (the
 * account API's session), or another header.
 */
export type Placement = { kind: 'bearer' } | { kind: 'cookie'; name: string } | { kind: 'header'; name: string };

/** The placement of the operation's first security scheme; undefined when the operation takes none (`security: []`). */
export function placementOf(spec: OpenApiDocument, operation: OperationContract): Placement | undefined {
  const name = operation.security[0];
  if (name === undefined) return undefined;
  const schemes = isObject(spec.components['securitySchemes']) ? spec.components['securitySchemes'] : {};
  const scheme = schemes[name] === undefined ? {} : deref(spec, schemes[name]);
  if (scheme['type'] === 'apiKey' && typeof scheme['name'] === 'string') {
    if (scheme['in'] === 'cookie') return { kind: 'cookie', name: scheme['name'] };
    if (scheme['in'] === 'header') return { kind: 'header', name: scheme['name'] };
  }
  return { kind: 'bearer' };
}

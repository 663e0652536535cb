import type { OperationContract } from '../contract/operations.js';
import { deref, isObject, type OpenApiDocument } from '../contract/spec.js';

/**
 * A security scheme as the suite presents it on the wire: a bearer token in `Authorization` (HTTP
 * bearer, and the access token of OAuth 2 and OpenID Connect), HTTP Basic (`user:password`), an
 * API key in a header, the query string or a cookie (the account API's session), or one the suite
 * cannot present (mutual TLS, HTTP Digest), with the reason.
 */
export type Scheme =
  | { name: string; kind: 'bearer' }
  | { name: string; kind: 'basic' }
  | { name: string; kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; key: string }
  | { name: string; kind: 'unsupported'; reason: string };

/** The parts of a request credentials go into. */
export interface CredentialWire {
  headers: Record<string, string>;
  query: Array<[string, string]>;
  cookies: Array<[string, string]>;
}

/** The credentials the run was given. */
export interface GivenCredentials {
  /** `--token` (or `API_KEY`): for every scheme that has no credential of its own. */
  token?: string;
  /** `--credential <scheme>=<value>`, by scheme name. */
  byScheme?: Record<string, string>;
  /** `--refused-credential <scheme>=<value>`: credentials the API must refuse (revoked, expired). */
  refused?: Array<{ scheme: string; value: string }>;
}

/** How an operation is called: the schemes presented together, and those of them the run has no credential for. */
export interface Requirement {
  schemes: Scheme[];
  /** Why the operation cannot be called as a valid caller (no credential given, a scheme the suite cannot present); empty when it can. */
  missing: string[];
}

/**
 * The run's credentials, placed per security scheme. An operation's requirement is the first
 * alternative of its `security` all of whose schemes have a credential (else the first); an
 * operation that lists an empty alternative (`{}`) or none may be called without.
 */
export class Credentials {
  readonly schemes: Map<string, Scheme>;
  readonly #given: GivenCredentials;

  constructor(spec: OpenApiDocument | Map<string, Scheme>, given: GivenCredentials) {
    this.schemes = spec instanceof Map ? spec : schemesOf(spec);
    this.#given = given;
  }

  /** The same schemes, with another caller's one credential for each (another user's key, a session the run made). */
  withToken(token: string): Credentials {
    return new Credentials(this.schemes, { token });
  }

  get refused(): ReadonlyArray<{ scheme: string; value: string }> {
    return this.#given.refused ?? [];
  }

  /** The value for one scheme: its own, else `--token`. */
  valueOf(scheme: string): string | undefined {
    return this.#given.byScheme?.[scheme] ?? this.#given.token;
  }

  /** Undefined when the operation may be called without a credential. */
  requirementOf(operation: OperationContract): Requirement | undefined {
    const alternatives = operation.securityRequirements ?? (operation.security.length > 0 ? [operation.security] : []);
    if (alternatives.length === 0 || alternatives.some((names) => names.length === 0)) return undefined;
    const read = alternatives.map((names) => {
      const schemes = names.map((name): Scheme => this.schemes.get(name) ?? { name, kind: 'unsupported', reason: `no security scheme ${name} in components` });
      const missing = schemes.flatMap((scheme) => {
        if (scheme.kind === 'unsupported') return [`the security scheme ${scheme.name} cannot be presented by the suite (${scheme.reason})`];
        return this.valueOf(scheme.name) === undefined
          ? [`no credential for the security scheme ${scheme.name} (give --credential ${scheme.name}=<value>)`]
          : [];
      });
      return { schemes, missing };
    });
    return read.find((requirement) => requirement.missing.length === 0) ?? read[0];
  }

  /** Puts the operation's credentials on the wire; `replace` gives one scheme another value (a refused or unknown one). */
  apply(operation: OperationContract, wire: CredentialWire, replace?: { scheme: string; value: string }): void {
    for (const scheme of this.requirementOf(operation)?.schemes ?? []) {
      const value = replace?.scheme === scheme.name ? replace.value : this.valueOf(scheme.name);
      if (value !== undefined) place(scheme, value, wire);
    }
  }

  /** Each secret as it may appear on the wire, and what a report shows instead. */
  secrets(): Array<[string, string]> {
    const secrets: Array<[string, string]> = [];
    const add = (value: string, label: string) => {
      for (const form of [value, base64(value), encodeURIComponent(value)]) if (form.length >= 4) secrets.push([form, label]);
    };
    for (const [scheme, value] of Object.entries(this.#given.byScheme ?? {})) add(value, `$CREDENTIAL_${scheme}`);
    for (const { scheme, value } of this.refused) add(value, `$REFUSED_${scheme}`);
    if (this.#given.token !== undefined) add(this.#given.token, '$API_KEY');
    // Longest first, so a value inside another is not replaced first.
    return secrets.sort((a, b) => b[0].length - a[0].length);
  }
}

/** Puts one credential where its scheme says. */
export function place(scheme: Scheme, value: string, wire: CredentialWire): void {
  switch (scheme.kind) {
    case 'bearer':
      wire.headers['Authorization'] = `Bearer ${value}`;
      return;
    case 'basic':
      wire.headers['Authorization'] = `Basic ${base64(value)}`;
      return;
    case 'apiKey':
      if (scheme.in === 'header') wire.headers[scheme.key] = value;
      else if (scheme.in === 'query') wire.query.push([scheme.key, value]);
      else wire.cookies.push([scheme.key, value]);
      return;
    case 'unsupported':
      return;
  }
}

/** Every security scheme of the spec, read. */
export function schemesOf(spec: OpenApiDocument): Map<string, Scheme> {
  const raw = isObject(spec.components['securitySchemes']) ? spec.components['securitySchemes'] : {};
  const schemes = new Map<string, Scheme>();
  for (const [name, entry] of Object.entries(raw)) {
    const scheme = deref(spec, entry);
    const type = scheme['type'];
    const http = typeof scheme['scheme'] === 'string' ? scheme['scheme'].toLowerCase() : '';
    if (type === 'http' && http === 'bearer') schemes.set(name, { name, kind: 'bearer' });
    else if (type === 'http' && http === 'basic') schemes.set(name, { name, kind: 'basic' });
    else if (type === 'oauth2' || type === 'openIdConnect') schemes.set(name, { name, kind: 'bearer' });
    else if (type === 'apiKey' && typeof scheme['name'] === 'string' && ['header', 'query', 'cookie'].includes(String(scheme['in'])))
      schemes.set(name, { name, kind: 'apiKey', in: scheme['in'] as 'header' | 'query' | 'cookie', key: scheme['name'] });
    else schemes.set(name, { name, kind: 'unsupported', reason: `${String(type)}${http ? ` ${http}` : ''}` });
  }
  return schemes;
}

function base64(text: string): string {
  return Buffer.from(text).toString('base64');
}

/**
 * Who is calling, for the stateful mock: the credential a request carries for the spec's security schemes
 * (a bearer token, an API key in a header, the query or a cookie), and the principal it stands for. A
 * credential the mock made at a sign-in stands for that user (two sessions of grace share grace's world);
 * any other credential is its own principal, so each token a developer makes up sees its own world.
 */
import { deref, isObject, type OpenApiDocument } from '../../contract/spec.js';

type Source = { in: 'header'; name: string; bearer: boolean } | { in: 'query'; name: string } | { in: 'cookie'; names: string[] };

/** Where the spec's security schemes carry a credential. */
export function credentialSources(spec: OpenApiDocument): Source[] {
  const schemes = isObject(spec.components['securitySchemes']) ? spec.components['securitySchemes'] : {};
  const sources: Source[] = [];
  for (const raw of Object.values(schemes)) {
    const scheme = deref(spec, raw);
    if (scheme['type'] === 'http' || scheme['type'] === 'oauth2' || scheme['type'] === 'openIdConnect')
      sources.push({ in: 'header', name: 'authorization', bearer: true });
    if (scheme['type'] !== 'apiKey' || typeof scheme['name'] !== 'string') continue;
    const name = scheme['name'];
    if (scheme['in'] === 'header') sources.push({ in: 'header', name: name.toLowerCase(), bearer: false });
    if (scheme['in'] === 'query') sources.push({ in: 'query', name });
    // Over plain HTTP a `__Host-` cookie is sent without its prefix (the account API's `session`).
    if (scheme['in'] === 'cookie') sources.push({ in: 'cookie', names: [name, name.replace(/^__(Host|Secure)-/, '')] });
  }
  return sources;
}

/** The first credential the request carries, as `where:value`; undefined when it carries none. */
export function credentialOf(sources: readonly Source[], headers: Headers, query: URLSearchParams): string | undefined {
  for (const source of sources) {
    if (source.in === 'header') {
      const value = headers.get(source.name)?.trim();
      if (value) return `header:${source.bearer ? value.replace(/^\S+\s+/, '') : value}`;
    } else if (source.in === 'query') {
      const value = query.get(source.name);
      if (value) return `query:${value}`;
    } else {
      const value = cookieValue(headers.get('cookie') ?? '', source.names);
      if (value) return `cookie:${value}`;
    }
  }
  return undefined;
}

/** The value of the first of the named cookies the Cookie header carries. */
export function cookieValue(cookieHeader: string, names: readonly string[]): string | undefined {
  const pairs = cookieHeader.split(';').map((pair) => pair.trim().split('='));
  for (const name of names) {
    const pair = pairs.find(([candidate]) => candidate === name);
    if (pair && pair.slice(1).join('=') !== '') return pair.slice(1).join('=');
  }
  return undefined;
}

/** The credentials the mock made (a sign-in's cookie) by the principal they stand for, and those a sign-out ended. */
export class Principals {
  readonly #made = new Map<string, string>();
  readonly #ended = new Set<string>();

  /** The principal of a credential: its user when the mock made it, else the credential itself; `anonymous` without one. */
  of(credential: string | undefined): string {
    if (credential === undefined) return 'anonymous';
    return this.#made.get(credential) ?? credential;
  }

  made(credential: string, principal: string): void {
    this.#made.set(credential, principal);
  }

  /**
   * Ends a credential the mock made (a sign-out). One it did not make (a token a developer made up, which
   * Prism accepts as any other) cannot end: the mock never knew it as a session, and a request Prism lets
   * through that the server would refuse (an unknown query parameter on a sign-out) must not end a run's token.
   */
  end(credential: string): void {
    if (!this.#made.delete(credential)) return;
    this.#ended.add(credential);
  }

  ended(credential: string | undefined): boolean {
    return credential !== undefined && this.#ended.has(credential);
  }

  reset(): void {
    this.#made.clear();
    this.#ended.clear();
  }
}

/**
 * What a sign-in (or sign-up) made by the stateful mock answers: the spec's example answer (`SessionInfo`)
 * made about the user who signed in. Every field of the request that is not a secret is set where the answer
 * has a field of that name (`user.name` takes the `name` sent), ids are made afresh, and the moments named for
 * a making (`createdAt`) are now. The cookie is the example's with a fresh token.
 */
import { randomBytes } from 'node:crypto';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import type { ValueMaker } from './make-values.js';
import { isDateTime, objectProperties } from './schema-shapes.js';

/** Field names of secrets a request sends and an answer never shows. */
const SECRET = /pass|secret|token/i;

/** The principal a sign-in's body names: its first text field that is no secret (the user name), if any. */
export function signedInName(body: Json | undefined): string | undefined {
  if (!isObject(body)) return undefined;
  const entry = Object.entries(body).find(([name, value]) => typeof value === 'string' && !SECRET.test(name));
  return typeof entry?.[1] === 'string' ? entry[1] : undefined;
}

/** The example answer made about the user the request names. */
export function identityFor(spec: OpenApiDocument, maker: ValueMaker, schema: Json | undefined, example: Json, body: Json | undefined): Json {
  const sent = isObject(body) ? Object.entries(body).filter(([name]) => !SECRET.test(name)) : [];
  return rewrite(spec, maker, schema, structuredClone(example), new Map(sent), 0);
}

function rewrite(spec: OpenApiDocument, maker: ValueMaker, schema: Json | undefined, value: Json, sent: Map<string, Json>, depth: number): Json {
  if (!isObject(value) || depth > 4) return value;
  const properties = objectProperties(spec, schema);
  const out: JsonObject = { ...value };
  for (const [name, current] of Object.entries(value)) {
    const property = properties[name];
    const given = sent.get(name);
    // Only a value the answer may carry: a sign-in's name of one character is no user name (`UserName` takes 3 to 64).
    if (given !== undefined && property !== undefined && maker.values.isValid(property, given)) out[name] = given;
    else if (name === 'id' && property !== undefined) out[name] = maker.newId(property, []);
    else if (/^created/i.test(name) && isDateTime(spec, property)) out[name] = maker.now();
    else out[name] = rewrite(spec, maker, property, current, sent, depth + 1);
  }
  return out;
}

/** A new session token, as long as the account API's (`[A-Za-z0-9_-]{43}`): 32 random bytes. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The `Set-Cookie` of the example answer with the token replaced: the same cookie name and attributes. */
export function cookieWithToken(setCookie: string, token: string): string {
  return setCookie.replace(/^([^=;,\s]+)=[^;]*/, `$1=${token}`);
}

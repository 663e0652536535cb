import type { OperationContract } from '../../contract/operations.js';
import { deref, isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { mayWrite, type OperationFacts } from '../operation-facts.js';
import { componentName, componentsIn, resolveSchema } from '../values/schema-refs.js';

/**
 * What a write does to the run itself, read from the spec:
 * - `makes-credential`: open to anyone (`security: []`) and answers with a `Set-Cookie` (sign-up, sign-in);
 * - `creates`: a POST to a collection (no path parameter, or one that can also be listed) answering with a body,
 *   or a POST under an item answering 201 with something else than the item (a sub-resource: `/pets/{id}/notes`);
 * - `changes`: any other write to a resource (PUT, PATCH, a POST action such as `/keys/{id}/revoke`);
 * - `deletes`: a DELETE of a resource;
 * - `ends-credential`: a write under a security scheme whose success sets a cookie: it can end or replace
 *   the very credential the run uses (sign-out, ending a session).
 */
export type WriteRole = 'makes-credential' | 'creates' | 'changes' | 'deletes' | 'ends-credential';

/**
 * The order writes run in, so that the suite never cuts the branch it sits on: credentials made first
 * (a throwaway account), then resources created, changed and deleted, and last of all what may end the
 * run's own credential. A run against a live application is then not a cascade of 401s.
 */
const ORDER: readonly WriteRole[] = ['makes-credential', 'creates', 'changes', 'deletes', 'ends-credential'];

/** The write role of an operation; undefined for one that only reads. */
export function writeRole(spec: OpenApiDocument, operation: OperationContract): WriteRole | undefined {
  if (!mayWrite(spec, operation)) return undefined;
  const setsCookie = Object.entries(operation.responses).some(
    ([status, response]) => status.startsWith('2') && Object.keys(response.headers).some((name) => name.toLowerCase() === 'set-cookie'),
  );
  if (setsCookie) return operation.security.length === 0 ? 'makes-credential' : 'ends-credential';
  if (operation.method === 'DELETE') return 'deletes';
  // A POST to a collection: no path parameter at all (`/things`), or a listable one under a parent (`/users/{id}/keys`);
  // a POST to an action of an item (`/keys/{keyId}/revoke`) changes that item.
  if (operation.method === 'POST' && !/\}$/.test(operation.path) && (!operation.path.includes('{') || listable(spec, operation.path))) {
    const answers = Object.entries(operation.responses).some(([status, response]) => status.startsWith('2') && Object.keys(response.content).length > 0);
    if (answers) return 'creates';
  }
  if (operation.method === 'POST' && subResourceCreate(spec, operation)) return 'creates';
  return 'changes';
}

/**
 * A POST under an item (`/pets/{id}/notes`) that answers 201 with something other than the item itself: it
 * creates a sub-resource (a note), it does not change the pet. One that answers with the item's own schema,
 * or with ids of the kind its path parameter names (`/keys/{keyId}/roll` answers with keys), replaces or
 * changes the item, and stays a change.
 */
function subResourceCreate(spec: OpenApiDocument, operation: OperationContract): boolean {
  const match = /^(.*\/\{[^}]+\})\/[^{}/]+$/.exec(operation.path);
  const created = operation.responses['201']?.content['application/json']?.schema;
  if (!match?.[1] || created === undefined) return false;
  // An answer that carries ids of the kind the path parameter names (a roll answers with keys) is about the item's kind: a change.
  const named = operation.parameters.filter((parameter) => parameter.in === 'path').flatMap((parameter) => componentName(parameter.schema) ?? []);
  const answered = componentsIn(spec, created);
  if (named.some((component) => answered.has(component))) return false;
  const item = match[1];
  const collection = item.replace(/\/\{[^}]+\}$/, '');
  const itemSchemas = [operationAt(spec, item, 'get')?.['responses'], operationAt(spec, collection, 'post')?.['responses']].flatMap((responses) =>
    isObject(responses)
      ? Object.entries(responses)
          .filter(([status]) => status.startsWith('2'))
          .map(([, response]) => jsonSchemaOf(spec, response))
      : [],
  );
  const same = (schema: Json | undefined) =>
    schema !== undefined && JSON.stringify(resolveSchema(spec, schema)) === JSON.stringify(resolveSchema(spec, created));
  return !itemSchemas.some(same);
}

function operationAt(spec: OpenApiDocument, path: string, method: string): JsonObject | undefined {
  const item = spec.paths[path];
  if (!isObject(item)) return undefined;
  const raw = deref(spec, item)[method];
  return raw === undefined ? undefined : deref(spec, raw);
}

function jsonSchemaOf(spec: OpenApiDocument, response: Json): Json | undefined {
  const content = deref(spec, response)['content'];
  const media = isObject(content) ? (content['application/json'] ?? Object.values(content)[0]) : undefined;
  return isObject(media) ? media['schema'] : undefined;
}

function listable(spec: OpenApiDocument, path: string): boolean {
  return isObject(spec.paths[path]) && deref(spec, spec.paths[path])['get'] !== undefined;
}

/** The writing operations in the order they may run; operations that only read are left out. */
export function inWriteOrder(spec: OpenApiDocument, facts: OperationFacts[]): Array<{ facts: OperationFacts; role: WriteRole }> {
  return facts
    .map((entry) => ({ facts: entry, role: writeRole(spec, entry.operation) }))
    .filter((entry): entry is { facts: OperationFacts; role: WriteRole } => entry.role !== undefined)
    .sort((a, b) => rank(a) - rank(b));
}

/**
 * The role's place. Among the writes that may end a credential: first one that only replaces the caller's cookie (a
 * password change that sends a new one: `PUT /password`), then one naming what it ends (`DELETE /sessions/{id}`),
 * and last the one that ends the caller's own (sign-out, `DELETE /session`).
 */
function rank({ facts, role }: { facts: OperationFacts; role: WriteRole }): number {
  if (role !== 'ends-credential') return ORDER.indexOf(role);
  const { method, path } = facts.operation;
  const own = !path.includes('{');
  const replaces = own && method !== 'DELETE';
  return ORDER.indexOf(role) + (replaces ? -0.25 : own ? 0.5 : 0);
}

import type { OperationContract } from '../../contract/operations.js';
import { deref, isObject, type OpenApiDocument } from '../../contract/spec.js';
import { mayWrite, type OperationFacts } from '../operation-facts.js';

/**
 * What a write does to the run itself, read from the spec:
 * - `makes-credential`: open to anyone (`security: []`) and answers with a `Set-Cookie` (sign-up, sign-in);
 * - `creates`: a POST to a collection (no path parameter, or one that can also be listed) answering with a body;
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
  return 'changes';
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

/** The role's place; among the writes that may end a credential, one naming what it ends (`/sessions/{id}`) before one that ends the caller's own (sign-out). */
function rank({ facts, role }: { facts: OperationFacts; role: WriteRole }): number {
  const own = role === 'ends-credential' && !facts.operation.path.includes('{') ? 0.5 : 0;
  return ORDER.indexOf(role) + own;
}

/**
 * What the stateful mock infers from a spec: its resources (a collection `/pets` with a create, its items
 * `/pets/{petId}`, sub-collections such as `/pets/{petId}/notes`), and for each operation what it does to
 * them (a plan). The write roles are the contract suite's (`writeRole`: creates, changes, deletes, makes or
 * ends a credential), so the mock and the suite's stateful phase read a spec the same way. An operation
 * with no plan is answered with the spec's examples, as by Prism alone.
 */
import type { OperationContract } from '../../contract/operations.js';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { writeRole } from '../../contract-suite/phases/write-order.js';
import { componentName } from '../../contract-suite/values/schema-refs.js';
import { answerExamples, answerSchema, successStatus } from './examples.js';
import { type Paging, pagingOf } from './paging.js';
import { isDateTime, isState, type Location, listedItemSchema, locate, locateArrayOf, objectProperties, valueAt } from './schema-shapes.js';

export interface Resource {
  /** The collection's path template: `/pets`, or `/pets/{petId}/notes` for a sub-collection. */
  collectionPath: string;
  /** The path template of one item (`/pets/{petId}`), when the spec has operations on one. */
  itemPath?: string;
  /** The item path's parameter (`petId`). */
  parameter?: string;
  /** The schema of one item, as the spec writes it. */
  schema: Json;
  /** The item's field that holds its id (the field of the path parameter's component, the parameter's name, or `id`). */
  idField: string;
  idSchema: Json;
  /** The items the spec's examples show: what every new caller's collection starts with (top-level collections only). */
  seeds: JsonObject[];
  /** The item as the create's example answer shows it: what the server fills in that a request does not send. */
  template?: JsonObject;
}

export type Plan =
  | { kind: 'create'; operation: OperationContract; resource: Resource; at: Location }
  | { kind: 'list'; operation: OperationContract; resource: Resource; at: Location; paging: Paging }
  | { kind: 'read'; operation: OperationContract; resource: Resource; at: Location }
  | {
      kind: 'change';
      operation: OperationContract;
      resource: Resource;
      /** Where the item sits in the answer; undefined when the answer is no item (a 204). */
      at?: Location;
      /** PUT replaces what the request can set, PATCH merges, an action (`POST /keys/{id}/revoke`) applies `effect`. */
      how: 'replace' | 'merge' | 'action';
      /** The states an action sets (`status: revoked`), read from its example answer. */
      effect: JsonObject;
      /** The moments an action sets to now (`revokedAt`). */
      stamps: string[];
    }
  | { kind: 'delete'; operation: OperationContract; resource: Resource }
  /** Any other operation on an item (`POST /keys/{id}/roll`): `404` once the item is gone, else the spec's example. */
  | { kind: 'guard'; operation: OperationContract; resource: Resource }
  /** Sign-up, sign-in: open to anyone, answers with a `Set-Cookie`. */
  | { kind: 'makes-credential'; operation: OperationContract }
  /** "Who am I": a read answering what a sign-in answers (`GET /session`). */
  | { kind: 'who-am-i'; operation: OperationContract }
  /** Sign-out, ending a session: a write whose success sets (clears) the cookie. */
  | { kind: 'ends-credential'; operation: OperationContract };

/** Each operation's plan by operationId, and the resources found. */
export interface Inference {
  resources: Resource[];
  plans: Map<string, Plan>;
}

export function inferResources(spec: OpenApiDocument, operations: readonly OperationContract[]): Inference {
  const resources: Resource[] = [];
  const plans = new Map<string, Plan>();
  for (const create of operations) {
    if (writeRole(spec, create) !== 'creates') continue;
    const found = resourceOf(spec, operations, create);
    if (found) resources.push(found);
  }
  // The longest collection first, so `/pets/{petId}/notes/{noteId}` belongs to the notes, not to the pets.
  resources.sort((a, b) => b.collectionPath.length - a.collectionPath.length);
  for (const operation of operations) {
    const plan = planOf(spec, operations, resources, operation);
    if (plan) plans.set(operation.operationId, plan);
  }
  return { resources, plans };
}

function resourceOf(spec: OpenApiDocument, operations: readonly OperationContract[], create: OperationContract): Resource | undefined {
  const collectionPath = create.path.replace(/\/$/, '');
  const itemPath = operations.map((operation) => itemPathUnder(collectionPath, operation.path)).find((path) => path !== undefined);
  const parameter = itemPath === undefined ? undefined : /\{([^}]+)\}$/.exec(itemPath)?.[1];
  const read = operations.find((operation) => operation.method === 'GET' && operation.path === itemPath);
  const list = operations.find((operation) => operation.method === 'GET' && operation.path.replace(/\/$/, '') === collectionPath);
  const createAnswer = answerSchema(create, successStatus(create));
  const listed = list ? listedItemSchema(spec, answerSchema(list, successStatus(list))) : undefined;
  const schema = (read && answerSchema(read, successStatus(read))) ?? listed?.item ?? createAnswer;
  if (schema === undefined || !isObject(schema)) return undefined;
  const createAt = locate(spec, createAnswer, schema);
  if (!createAt) return undefined;
  const properties = objectProperties(spec, schema);
  const parameterSchema = read?.parameters.find((candidate) => candidate.name === parameter)?.schema;
  const idField =
    Object.keys(properties).find(
      (name) => componentName(properties[name]) !== undefined && componentName(properties[name]) === componentName(parameterSchema),
    ) ??
    (parameter !== undefined && parameter in properties ? parameter : undefined) ??
    ('id' in properties ? 'id' : undefined);
  if (idField === undefined) return undefined;
  const template = answerExamples(spec, create, successStatus(create))
    .map((example) => valueAt(example, createAt))
    .find(isObject);
  return {
    collectionPath,
    ...(itemPath !== undefined && { itemPath }),
    ...(parameter !== undefined && { parameter }),
    schema,
    idField,
    idSchema: properties[idField] ?? {},
    seeds: collectionPath.includes('{') ? [] : seedsOf(spec, { list, read, idField, schema }),
    ...(template && { template }),
  };
}

/** `/pets/{petId}` when `path` is an item of the collection `/pets` (or an action under one); undefined otherwise. */
function itemPathUnder(collectionPath: string, path: string): string | undefined {
  const match = /^\/\{[^}]+\}/.exec(path.slice(collectionPath.length));
  return path.startsWith(`${collectionPath}/`) && match ? `${collectionPath}${match[0]}` : undefined;
}

/** The items the list's and the read's examples show, each id once. */
function seedsOf(
  spec: OpenApiDocument,
  { list, read, idField, schema }: { list: OperationContract | undefined; read: OperationContract | undefined; idField: string; schema: Json },
): JsonObject[] {
  const items: JsonObject[] = [];
  if (list) {
    const at = locateArrayOf(spec, answerSchema(list, successStatus(list)), schema);
    for (const example of at ? answerExamples(spec, list, successStatus(list)) : []) {
      const array = valueAt(example, at ?? []);
      if (Array.isArray(array)) items.push(...array.filter(isObject));
    }
  }
  if (read) items.push(...answerExamples(spec, read, successStatus(read)).filter(isObject));
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = JSON.stringify(item[idField]);
    if (item[idField] === undefined || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function planOf(spec: OpenApiDocument, operations: readonly OperationContract[], resources: Resource[], operation: OperationContract): Plan | undefined {
  const role = writeRole(spec, operation);
  if (role === 'makes-credential') return { kind: 'makes-credential', operation };
  if (role === 'ends-credential') return { kind: 'ends-credential', operation };
  const path = operation.path.replace(/\/$/, '');
  const answer = answerSchema(operation, successStatus(operation));
  const resource = resources.find((candidate) => path === candidate.collectionPath || path.startsWith(`${candidate.collectionPath}/`));
  if (resource) {
    if (path === resource.collectionPath) {
      if (role === 'creates') return { kind: 'create', operation, resource, at: locate(spec, answer, resource.schema) ?? [] };
      const at = operation.method === 'GET' ? locateArrayOf(spec, answer, resource.schema) : undefined;
      if (at) return { kind: 'list', operation, resource, at, paging: pagingOf(spec, operation, answer) };
      return undefined;
    }
    if (resource.itemPath === undefined || !(path === resource.itemPath || path.startsWith(`${resource.itemPath}/`))) return undefined;
    const at = locate(spec, answer, resource.schema);
    if (path === resource.itemPath) {
      if (operation.method === 'GET' && at) return { kind: 'read', operation, resource, at };
      if (operation.method === 'DELETE') return { kind: 'delete', operation, resource };
      if (operation.method === 'PUT' || operation.method === 'PATCH')
        return { kind: 'change', operation, resource, ...(at && { at }), how: operation.method === 'PUT' ? 'replace' : 'merge', effect: {}, stamps: [] };
    } else if (role === 'changes' && at?.length === 0 && !path.slice(resource.itemPath.length + 1).includes('/')) {
      return { kind: 'change', operation, resource, at, how: 'action', ...actionEffect(spec, operation, resource) };
    }
    return { kind: 'guard', operation, resource };
  }
  if (operation.method === 'GET' && !operation.path.includes('{') && answersWhatSignInAnswers(spec, operations, answer)) return { kind: 'who-am-i', operation };
  return undefined;
}

/** Whether a read answers with the component a sign-in answers with (`SessionInfo`): it tells who is signed in. */
function answersWhatSignInAnswers(spec: OpenApiDocument, operations: readonly OperationContract[], answer: Json | undefined): boolean {
  const component = componentName(answer);
  if (component === undefined) return false;
  return operations.some(
    (operation) => writeRole(spec, operation) === 'makes-credential' && componentName(answerSchema(operation, successStatus(operation))) === component,
  );
}

/**
 * What an action (`POST /keys/{keyId}/revoke`) does to its item, read from its example answer against the
 * item as it is made: the states it shows otherwise (`status: revoked`), and the moments it sets that a new
 * item leaves empty and that are named for the action (`revokedAt` for revoke).
 */
function actionEffect(spec: OpenApiDocument, operation: OperationContract, resource: Resource): { effect: JsonObject; stamps: string[] } {
  const example = answerExamples(spec, operation, successStatus(operation)).find(isObject);
  const base = resource.template ?? resource.seeds[0];
  if (!example || !base) return { effect: {}, stamps: [] };
  const verb = (operation.path.split('/').pop() ?? '').toLowerCase().slice(0, 4);
  const effect: JsonObject = {};
  const stamps: string[] = [];
  for (const [name, property] of Object.entries(objectProperties(spec, resource.schema))) {
    const value = example[name];
    if (value === undefined) continue;
    if (isState(spec, property) && JSON.stringify(value) !== JSON.stringify(base[name])) effect[name] = value;
    else if (isDateTime(spec, property) && base[name] === null && value !== null && verb.length > 2 && name.toLowerCase().startsWith(verb)) stamps.push(name);
  }
  return { effect, stamps };
}

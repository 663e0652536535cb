/**
 * The stateful mock: sits in the mock's edge behind Prism, and for each operation whose effect it could infer
 * (`resources.ts`) turns Prism's answer into one about what the caller has made. Prism still answers first,
 * so validation, security and every problem are exactly the edge's; only a `2xx` is replaced (a create is
 * stored and answered, a list shows the stored items a page at a time, a read of a deleted item is a `404`).
 * A request with `Prefer` asks Prism for a given example or status, and gets it untouched.
 */
import type { OperationContract } from '../../contract/operations.js';
import { readOperations } from '../../contract/operations.js';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { edgeContract } from '../edge-contract.js';
import { headerExamples, problemTypesByStatus } from '../spec-answers.js';
import { credentialOf, credentialSources, Principals } from './credentials.js';
import { answerSchema, successStatus } from './examples.js';
import { cookieWithToken, identityFor, newToken, signedInName } from './identity.js';
import { changedItem, createdItem, type ItemContext } from './items.js';
import { ValueMaker } from './make-values.js';
import { pageOf, withPagingFields } from './paging.js';
import { type ProblemFacts, problemAnswer } from './problems.js';
import { inferResources, type Resource } from './resources.js';
import { objectProperties, withValueAt } from './schema-shapes.js';
import { type World, Worlds } from './store.js';

/** A request as the edge passed it to Prism. */
export interface StatefulRequest {
  method: string;
  /** The spec's path template the request matched (`/keys/{keyId}`). */
  specPath: string;
  /** The path without the edge's base path (`/keys/key_…`). */
  apiPath: string;
  /** The path as asked: a problem's `instance`. */
  instance: string;
  query: URLSearchParams;
  headers: Headers;
  body?: ArrayBuffer;
}

export interface StatefulMock {
  /** The operationIds it answers from what callers made, those it guards (`404` once the item is gone), and those left to the examples. */
  readonly coverage: { stateful: string[]; guarded: string[]; examples: string[] };
  /** A `401` for a credential a sign-out ended, before Prism sees the request; undefined otherwise. */
  refuse(request: StatefulRequest): Response | undefined;
  /** The answer about the caller's world in place of Prism's `2xx`; undefined to send Prism's as it is. */
  answer(request: StatefulRequest, prism: Response): Promise<Response | undefined>;
  /** Forgets every world and every session the mock made. */
  reset(): void;
}

export function createStatefulMock(spec: OpenApiDocument): StatefulMock {
  const operations = readOperations(spec, { nameless: 'method-path' });
  const { resources, plans } = inferResources(spec, operations);
  const byRoute = new Map(operations.map((operation) => [`${operation.method} ${operation.path}`, operation]));
  const sources = credentialSources(spec);
  /** The cookies the spec's security schemes read: a write that sets one of them changes the caller's credential. */
  const sessionCookieNames = new Set(sources.flatMap((source) => (source.in === 'cookie' ? source.names : [])));
  const worlds = new Worlds();
  const principals = new Principals();
  const maker = new ValueMaker(spec);
  const items: ItemContext = { spec, maker };
  const headers = headerExamples(spec);
  const problems: ProblemFacts = {
    spec,
    maker,
    problemTypes: problemTypesByStatus(spec),
    bounds: edgeContract(spec).problemBounds,
    declaredHeaders: (operation, status) => headers.get(`${operation.method} ${operation.path} ${status}`) ?? {},
  };

  const coverage = { stateful: [] as string[], guarded: [] as string[], examples: [] as string[] };
  for (const operation of operations) {
    const kind = plans.get(operation.operationId)?.kind;
    (kind === undefined ? coverage.examples : kind === 'guard' ? coverage.guarded : coverage.stateful).push(operation.operationId);
  }

  const routeOf = (request: StatefulRequest) => byRoute.get(`${request.method} ${request.specPath}`);
  const callerOf = (request: StatefulRequest) => credentialOf(sources, request.headers, request.query);

  return {
    coverage,
    reset() {
      worlds.reset();
      principals.reset();
    },
    refuse(request) {
      const operation = routeOf(request);
      if (!operation || operation.security.length === 0 || !principals.ended(callerOf(request))) return undefined;
      return problemAnswer(problems, operation, 401, request.instance, 'The session has ended: sign in again.');
    },
    async answer(request, prism) {
      const operation = routeOf(request);
      const plan = operation ? plans.get(operation.operationId) : undefined;
      if (!operation || !plan || prism.status < 200 || prism.status >= 300 || request.headers.has('prefer')) return undefined;
      const credential = callerOf(request);
      const world = worlds.of(principals.of(credential));
      const params = pathParameters(request.specPath, request.apiPath);
      // Every item the path goes through must exist: a note of a deleted pet is gone with it.
      for (const resource of resources) {
        const inside = resource.itemPath !== undefined && (request.specPath === resource.itemPath || request.specPath.startsWith(`${resource.itemPath}/`));
        if (inside && !itemOf(world, resource, params))
          return problemAnswer(problems, operation, 404, request.instance, `Nothing at ${request.instance}: it does not exist, or no longer does.`);
      }
      const prismBody = parseJson(await prism.clone().text());
      const body = parseBody(request);
      switch (plan.kind) {
        case 'create': {
          const collection = world.collection(plan.resource, concrete(plan.resource.collectionPath, params));
          const item = createdItem(items, plan.resource, body, collection.keys());
          collection.set(String(item[plan.resource.idField]), item);
          return json(prism, withValueAt(prismBody, plan.at, item));
        }
        case 'list': {
          const collection = world.collection(plan.resource, concrete(plan.resource.collectionPath, params));
          const paged = pageOf([...collection.values()], plan.paging, request.query);
          if ('refused' in paged) {
            // A cursor of another list (or none the mock made): the spec's 422, where the operation documents one.
            if (!('422' in operation.responses)) return undefined;
            const { parameter, detail } = paged.refused;
            return problemAnswer(problems, operation, 422, request.instance, `The ${parameter} does not belong to this request.`, [
              { in: 'query', pointer: `/${parameter}`, detail },
            ]);
          }
          const { page, next } = paged;
          const answer = withValueAt(prismBody, plan.at, page);
          return json(prism, isObject(answer) ? withPagingFields(answer, plan.paging, next, collection.size) : answer);
        }
        case 'read':
          return json(prism, withValueAt(prismBody, plan.at, itemOf(world, plan.resource, params) ?? {}));
        case 'change': {
          const item = itemOf(world, plan.resource, params) ?? {};
          const settable = Object.keys(objectProperties(spec, requestSchema(plan.operation)));
          const changed = changedItem(items, plan.resource, item, { ...plan, body, settable });
          world.collection(plan.resource, concrete(plan.resource.collectionPath, params)).set(String(changed[plan.resource.idField]), changed);
          return plan.at ? json(prism, withValueAt(prismBody, plan.at, changed)) : undefined;
        }
        case 'delete':
          world.collection(plan.resource, concrete(plan.resource.collectionPath, params)).delete(params[plan.resource.parameter ?? ''] ?? '');
          return undefined;
        case 'guard':
          return undefined;
        case 'makes-credential':
          return signedIn(plan.operation, prism, prismBody, body);
        case 'who-am-i':
          return world.identity ? json(prism, world.identity) : undefined;
        case 'ends-credential':
          if (!plan.operation.path.includes('{')) {
            // Only a write that sets the security scheme's own cookie touches the caller's credential: one that clears
            // it ends it (a sign-out), one that sets a live one replaces it with a fresh one for the same user. A write
            // that sets another cookie (a password change's new device cookie: the server keeps this session) leaves it.
            const setCookies = prism.headers.getSetCookie();
            const own = setCookies.find((cookie) => sessionCookieNames.has(/^([^=]+)=/.exec(cookie)?.[1] ?? ''));
            if (credential === undefined || own === undefined) return undefined;
            if (plan.operation.method !== 'DELETE' && !clearsCookie(own)) {
              const token = newToken();
              principals.made(`cookie:${token}`, principals.of(credential));
              principals.end(credential);
              return withSetCookies(
                prism,
                setCookies.map((cookie) => (cookie === own ? cookieWithToken(own, token) : cookie)),
              );
            }
            principals.end(credential);
            return undefined;
          }
          // Ending another session than this one leaves this one's cookie alone (the spec sends the clearing cookie only for this one).
          return withoutSetCookie(prism);
      }
    },
  };

  /** A sign-in or sign-up: a fresh token for the user the body names, and the answer about that user. */
  function signedIn(operation: OperationContract, prism: Response, prismBody: Json | undefined, body: Json | undefined): Response | undefined {
    const token = newToken();
    const name = signedInName(body);
    const principal = name === undefined ? `token:${token}` : `user:${name}`;
    const world = worlds.of(principal);
    const setCookies = prism.headers.getSetCookie();
    if (setCookies.length === 0 || prismBody === undefined) return undefined;
    world.identity ??= asObject(identityFor(spec, maker, answerSchema(operation, successStatus(operation)), prismBody, body));
    const [first, ...rest] = setCookies;
    const cookieName = /^([^=]+)=/.exec(first ?? '')?.[1] ?? '';
    principals.made(`cookie:${token}`, principal);
    const answer = json(prism, world.identity);
    answer.headers.delete('set-cookie');
    answer.headers.append('set-cookie', cookieWithToken(first ?? `${cookieName}=`, token));
    for (const cookie of rest) answer.headers.append('set-cookie', cookie);
    return answer;
  }
}

/** The stored item a path names, following its resource's path parameter; undefined when it is not there. */
function itemOf(world: World, resource: Resource, params: Readonly<Record<string, string>>): JsonObject | undefined {
  const id = resource.parameter === undefined ? undefined : params[resource.parameter];
  return id === undefined ? undefined : world.collection(resource, concrete(resource.collectionPath, params)).get(id);
}

/** The path parameters of a concrete path, read against the spec's template. */
export function pathParameters(template: string, path: string): Record<string, string> {
  const names = template.split('/');
  const values = path.split('/');
  const params: Record<string, string> = {};
  names.forEach((segment, index) => {
    const name = /^\{([^}]+)\}$/.exec(segment)?.[1];
    if (name !== undefined && values[index] !== undefined) params[name] = decodeURIComponent(values[index]);
  });
  return params;
}

/** A collection's template with this request's parameters filled in (`/pets/7/notes`): the key of its items. */
function concrete(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

function requestSchema(operation: OperationContract): Json | undefined {
  return Object.entries(operation.requestBody?.content ?? {}).find(([type]) => /json/i.test(type))?.[1].schema;
}

function parseBody(request: StatefulRequest): Json | undefined {
  if (!request.body || !/json/i.test(request.headers.get('content-type') ?? '')) return undefined;
  return parseJson(new TextDecoder().decode(request.body));
}

function parseJson(text: string): Json | undefined {
  try {
    return text === '' ? undefined : (JSON.parse(text) as Json);
  } catch {
    return undefined;
  }
}

function asObject(value: Json): JsonObject {
  return isObject(value) ? value : {};
}

/** Prism's answer (status and headers) with another JSON body. */
function json(prism: Response, body: Json | undefined): Response {
  const headers = new Headers(prism.headers);
  headers.delete('content-length');
  if (body === undefined) return new Response(null, { status: prism.status, headers });
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(body), { status: prism.status, headers });
}

function withoutSetCookie(prism: Response): Response {
  return withSetCookies(prism, []);
}

/** Prism's answer with these `Set-Cookie` headers instead of its own. */
function withSetCookies(prism: Response, setCookies: readonly string[]): Response {
  const headers = new Headers(prism.headers);
  headers.delete('set-cookie');
  for (const cookie of setCookies) headers.append('set-cookie', cookie);
  return new Response(prism.body, { status: prism.status, headers });
}

/** A `Set-Cookie` that removes its cookie: an empty value, `Max-Age=0`, or an expiry in the past. */
function clearsCookie(setCookie: string): boolean {
  return /^[^=]+=;/.test(setCookie) || /;\s*max-age=0\b/i.test(setCookie) || /;\s*expires=Thu, 01 Jan 1970/i.test(setCookie);
}

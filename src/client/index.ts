/**
 * Typed client for the Bearer List API, built on openapi-fetch and the types
 * generated from `openapi/openapi.yaml`. Its only runtime dependency is
 * openapi-fetch; everything else is types.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operationRoutes, operations, paths } from '../../generated/openapi.js';
import { checkBaseUrl } from './base-url.js';
import { isDevelopment, preferWarnings } from './mock-only-headers.js';

export type { components, operations, paths } from '../../generated/openapi.js';

/** The error body of every failed request: RFC 9457 Problem Details, as the contract defines it. */
export type Problem = components['schemas']['Problem'];
export type Item = components['schemas']['Item'];
export type ItemPage = components['schemas']['ItemPage'];
export type Sort = components['schemas']['Sort'];
/** The options of the list operations that take a body (`sort`, `limit`, `cursor`). */
export type ListRequest = components['schemas']['ListRequest'];

/** The openapi-fetch client for this API: `GET`, `POST`, ... with paths, bodies and answers typed from the spec. */
export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /**
   * Root of the API, e.g. `http://127.0.0.1:3000`, the mock `http://127.0.0.1:4010`, or a path on the page's
   * own origin such as `/api` (a dev server's proxy; in a browser only, where a relative URL has a page to resolve against).
   */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <apiKey>` on every request (surrounding whitespace is trimmed). */
  apiKey: string;
  /** A fetch to use instead of `globalThis.fetch` (tests, proxies, instrumentation). */
  fetch?: (input: Request) => Promise<Response>;
  /**
   * Warn in the console when a `Prefer` header (the mock's) goes unheeded or its request fails. Default: in a
   * development build (Vite's `import.meta.env.DEV`, or `NODE_ENV` set and not `production`).
   */
  warnings?: boolean;
}

/**
 * Creates a typed client. Calls never throw on HTTP errors: they resolve to
 * `{ data, response }` on 2xx or `{ error, response }` otherwise, where `error`
 * is the contract's `Problem`.
 *
 * @param options.baseUrl Root of the API, absolute or a path on the page's origin such as `/api` (no default: say which server you mean).
 * @param options.apiKey API key sent as a bearer token; whitespace around it (a pasted newline) is trimmed.
 * @param options.fetch Optional fetch implementation; defaults to `globalThis.fetch`.
 * @param options.warnings Console warnings about a `Prefer` header a server ignores; default: in development builds.
 * @example
 * const api = createApiClient({ baseUrl: 'http://127.0.0.1:4010', apiKey: 'tka_...' });
 * const { data, error } = await api.POST('/', { body: { sort: 'desc', limit: 10 } });
 * if (error) console.error(error.type, error.detail);
 * else for (const item of data.items) console.log(item.title);
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseUrl = checkBaseUrl('createApiClient', options.baseUrl);
  const apiKey = checkApiKey(options.apiKey);
  const client = createClient<paths>({ baseUrl, ...(options.fetch && { fetch: options.fetch }) });
  client.use(bearerAuth(apiKey));
  if (options.warnings ?? isDevelopment()) client.use(preferWarnings());
  return client;
}

/** Middleware that sets `Authorization: Bearer <apiKey>` on every request. */
export function bearerAuth(apiKey: string): Middleware {
  const value = `Bearer ${checkApiKey(apiKey)}`;
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', value);
      return request;
    },
  };
}

/** An operation's JSON answer for 200, or `never`. */
type PageOf<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Page } } } } ? Page : never;
/** Where an operation takes its options: its JSON body if it has one, else its query string. */
type OptionsIn<Operation> = Operation extends { requestBody: { content: { 'application/json': unknown } } } ? 'body' : 'query';
/** An operation's options: its JSON body, or its query parameters. */
type OptionsOf<Operation> =
  OptionsIn<Operation> extends 'body'
    ? Operation extends { requestBody: { content: { 'application/json': infer Body } } }
      ? Body
      : never
    : Operation extends { parameters: { query?: infer Query } }
      ? NonNullable<Query>
      : never;

/**
 * The list operations of the contract, derived from the generated types: those whose
 * 200 answer carries a `nextCursor` and whose options take a `cursor`. A new one is
 * walkable once it has a route in `LIST_ROUTES` below (the typecheck says so; `npm run fix` writes it).
 */
export type ListOperationId = ListOperationIdIn<operations>;
/** The list operations of any generated `operations` type (the type-level tests feed it an edited one). */
export type ListOperationIdIn<Operations> = {
  [Id in keyof Operations]: IsNever<PageOf<Operations[Id]>> extends true
    ? never
    : IsNever<OptionsOf<Operations[Id]>> extends true
      ? never
      : PageOf<Operations[Id]> extends { nextCursor: unknown }
        ? 'cursor' extends keyof OptionsOf<Operations[Id]>
          ? Id
          : never
        : never;
}[keyof Operations];
/**
 * `never` (no JSON 200, or no query parameters) extends every type and has every key, so without this
 * test an operation such as a DELETE answering 204 would pass for a list.
 */
type IsNever<T> = [T] extends [never] ? true : false;

/** The options {@link paginate} takes for an operation: everything it accepts but the cursor, which the walk manages. */
export type PaginateRequest<Id extends ListOperationId> = PaginateRequestIn<operations, Id>;
/** {@link PaginateRequest} of any generated `operations` type. */
export type PaginateRequestIn<Operations, Id extends keyof Operations> = Omit<OptionsOf<Operations[Id]>, 'cursor'>;
/** One page of a list operation, as the contract types its 200 answer. */
export type PageOfOperation<Id extends ListOperationId> = PageOf<operations[Id]>;

/**
 * Where each list operation is, and where it takes its options: the one runtime copy
 * of the spec's routes the client needs, held to `operationRoutes` (generated from the
 * spec) by its type, so a moved route or a new list operation fails the typecheck here.
 */
const LIST_ROUTES = {
  listOwnItems: { method: 'post', path: '/', options: 'body' },
  listSharedItems: { method: 'post', path: '/shared', options: 'body' },
  listSharedItemsByQuery: { method: 'get', path: '/shared', options: 'query' },
} as const satisfies { [Id in ListOperationId]: operationRoutes[Id] & { options: OptionsIn<operations[Id]> } };

/** Raised by {@link paginate} when a page fails; carries the contract's Problem. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly problem: Problem;
  readonly status: number;

  constructor(problem: Problem, response: Response) {
    super(`${response.status} ${problem.title}: ${problem.detail}`);
    this.problem = problem;
    this.status = response.status;
  }
}

export interface PaginateOptions {
  /** Stops the walk (and the pending request) when aborted. */
  signal?: AbortSignal;
  /** Stops after this many pages even if more follow. Default: no limit. */
  maxPages?: number;
}

/**
 * Walks every page of a list operation, following `nextCursor` until it is `null`.
 * Yields one page per request; a failed page throws a {@link ProblemError}.
 *
 * @param client A client from {@link createApiClient}.
 * @param operation Which list to walk, by operationId: `listOwnItems` (`POST /`), `listSharedItems` (`POST /shared`), `listSharedItemsByQuery` (`GET /shared`), or any list the spec adds.
 * @param request The operation's options but the cursor (managed here), typed from the spec. Default: `{}` (the spec's defaults).
 * @param options `signal` and `maxPages`.
 * @example
 * for await (const page of paginate(api, 'listSharedItems', { sort: 'desc', limit: 50 })) {
 *   for (const item of page.items) console.log(item.title);
 * }
 */
export async function* paginate<Id extends ListOperationId>(
  client: ApiClient,
  operation: Id,
  request: PaginateRequest<Id> = {} as PaginateRequest<Id>,
  options: PaginateOptions = {},
): AsyncGenerator<PageOfOperation<Id>, void, undefined> {
  const route: { method: string; path: string; options: 'body' | 'query' } = LIST_ROUTES[operation];
  // The route is generic here; each call site is typed by the signature above.
  const send = client.request.bind(client) as unknown as (
    method: string,
    path: string,
    init: object,
  ) => Promise<{ data?: unknown; error?: Problem; response: Response }>;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; options.maxPages === undefined || pages < options.maxPages; pages++) {
    const values = cursor === undefined ? { ...request } : { ...request, cursor };
    const init = { ...(route.options === 'body' ? { body: values } : { params: { query: values } }), ...(options.signal && { signal: options.signal }) };
    const result = await send(route.method, route.path, init);
    if (result.error !== undefined) throw new ProblemError(result.error, result.response);
    const page = result.data as PageOfOperation<Id>;
    yield page;
    const next = (page as { nextCursor: string | null }).nextCursor;
    if (next === null) return;
    if (seen.has(next)) {
      // A server that ignores cursors would make this loop forever. The Prism
      // mock in static mode does exactly that: it answers every page with the same example.
      throw new Error(
        `${operation}: the server sent the cursor ${JSON.stringify(next)} twice, so the walk would never end. ` +
          'Against the static Prism mock, pick a last page with the header `Prefer: example=lastPage`, or run `npm run mock:dynamic`.',
      );
    }
    seen.add(next);
    cursor = next;
  }
}

/** The key as given, without the whitespace a copy and paste (or a secrets file's final newline) leaves around it. */
function checkApiKey(apiKey: unknown): string {
  const key = typeof apiKey === 'string' ? apiKey.trim() : '';
  if (key === '' || /\s/.test(key)) {
    throw new TypeError(
      'createApiClient: apiKey must be a non-empty API key without spaces inside (generate one on the account settings page of the web application)',
    );
  }
  return key;
}

/**
 * Typed client for the account API (`openapi/account.yaml`): what the pages use,
 * and what a frontend developer points at the Prism mock. Built on openapi-fetch
 * and `generated/account.d.ts`; its only runtime dependency is openapi-fetch.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/account.js';
import { checkBaseUrl } from './base-url.js';
import { isDevelopment, preferWarnings } from './mock-only-headers.js';

export type { components as AccountComponents, paths as AccountPaths } from '../../generated/account.js';

export type AccountProblem = components['schemas']['Problem'];
export type ApiKey = components['schemas']['ApiKey'];
export type KeyEvent = components['schemas']['KeyEvent'];
export type SessionInfo = components['schemas']['SessionInfo'];

/** The openapi-fetch client for the account API: paths, bodies and answers typed from its spec. */
export type AccountClient = Client<paths>;

export interface AccountClientOptions {
  /** Where the account API is mounted; `/api` on the web application's own origin (the default). */
  baseUrl?: string;
  /** A fetch to use instead of `globalThis.fetch` (tests, instrumentation). */
  fetch?: (input: Request) => Promise<Response>;
  /** Warn in the console when a `Prefer` header (the mock's) goes unheeded or its request fails. Default: in development builds. */
  warnings?: boolean;
}

/**
 * Creates a typed client for the account API. The session travels in its
 * `HttpOnly` cookie, which the browser sends on same-origin requests by itself
 * (`credentials: 'same-origin'`); the client never sees it. Calls never throw on
 * HTTP errors: they resolve to `{ data }` or `{ error }`, where `error` is the
 * contract's `Problem`.
 *
 * @param options.baseUrl Mount point of the account API; default `/api`.
 * @example
 * const account = createAccountClient();
 * const { data, error } = await account.POST('/keys', { body: { name: 'CI pipeline', expiresInDays: 30 } });
 * if (data) showOnce(data.secret);
 */
export function createAccountClient(options: AccountClientOptions = {}): AccountClient {
  const client = createClient<paths>({
    baseUrl: checkBaseUrl('createAccountClient', options.baseUrl ?? '/api'),
    credentials: 'same-origin',
    ...(options.fetch && { fetch: options.fetch }),
  });
  if (options.warnings ?? isDevelopment()) client.use(preferWarnings());
  return client;
}

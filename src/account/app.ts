import type { IncomingMessage } from 'node:http';
import { type Context, Hono } from 'hono';
import { scrubKeys } from '../keys/api-key.js';
import type { PageAssets } from '../pages/assets.js';
import { pageResponse } from '../pages/serve.js';
import { bindOperations, type HandlerResult } from '../server/bind-operations.js';
import { ApiError, type ProblemBody } from '../server/problems.js';
import { FixedWindowRateLimiter } from '../server/rate-limit.js';
import { type CompiledOperation, clip, type Limits, type RequestContract } from '../server/request-contract.js';
import { type AppLogger, requestLog } from '../server/request-log.js';
import type { RequestLines } from '../server/request-lines.js';
import { responseHeaders } from '../server/response-headers.js';
import { ContractBreach, createResponseValidator, type ResponseValidationMode } from '../server/response-validation.js';
import { storeUnavailableProblems } from '../server/unavailable.js';
import { type Store, StoreUnavailable } from '../store/store.js';
import type { AccountLimits } from '../contract/limits.js';
import { type AccountContext, type AccountHandlers, accountHandlers } from './operations.js';
import { checkSameOrigin } from './same-origin.js';
import { Sessions, sessionCookieFor } from './sessions.js';
import { FailureCounter, StoredFailureLimit } from './sign-in-limiter.js';

export interface WebAppOptions {
  store: Store;
  /** The account spec compiled into validators and limits (`compileRequestContract`). */
  contract: RequestContract;
  /** The account spec's own limits (`readAccountLimits`). */
  accountLimits: AccountLimits;
  logger: AppLogger;
  /** Where the one line per request goes; by default `logger.info` (the server passes its `BatchedRequestLines`). */
  requestLines?: RequestLines;
  /** The pages and their assets (`buildPages`). */
  pages: PageAssets;
  /** Milliseconds since the epoch; a test passes a fake clock. */
  now?: () => number;
  /**
   * The web application's public origin (`WEB_ORIGIN`), e.g. `https://keys.example.com`.
   * An `https` origin makes the session cookie `__Host-session` with `Secure`. Unset in
   * local development: the cookie is `session`, and unsafe requests must come from a
   * loopback `http://<Host>` page.
   */
  origin?: string;
  /** The caller's address, for the per-client limits; by default the socket's peer. */
  clientAddress?: (c: Context) => string;
  /** Overrides of the account spec's `x-limits` body size and request rate. */
  limits?: Partial<Limits>;
  /** What each operation does; by default the project's own (`src/account/operations.ts`). */
  handlers?: AccountHandlers;
  /** Whether answers are checked against the account spec before they are sent. Default `strict`. */
  responseValidation?: ResponseValidationMode;
}

type WebEnv = { Variables: { requestId: string; operation?: CompiledOperation } };

/** Where the account API is mounted on the web application's listener. */
export const ACCOUNT_API_BASE = '/api';

/**
 * The web application: the pages (static HTML, one script, one stylesheet) and
 * the account API under `/api`, on the operation seam like the public API,
 * typed from `generated/account.d.ts`. Its own listener keeps the session cookie
 * away from `{base_url}`.
 */
export function createWebApp(options: WebAppOptions): Hono<WebEnv> {
  const { store, contract, logger, pages, accountLimits } = options;
  const now = options.now ?? Date.now;
  const limits: Limits = { ...contract.limits, ...options.limits };
  const bounds = contract.problemBounds;
  const secure = options.origin?.startsWith('https://') ?? false;
  const sessions = new Sessions(store, sessionCookieFor(secure), accountLimits.session);
  const requests = new FixedWindowRateLimiter({ ...limits.rateLimit, now });
  // In the store: every instance on one database counts an account's and a client's failed sign-ins together.
  const { failuresPerAccount, failuresPerClient, windowSeconds } = accountLimits.signIn;
  const signInFailures = {
    perAccount: new StoredFailureLimit({ store, scope: 'account', failures: failuresPerAccount, windowSeconds, now }),
    perClient: new StoredFailureLimit({ store, scope: 'client', failures: failuresPerClient, windowSeconds, now }),
  };
  const clientAddress = options.clientAddress ?? socketAddress;
  const { perAddress, total, windowSeconds: failureWindow } = limits.failedAuthentication;
  const failedAuthentication = {
    perAddress: new FailureCounter({ failures: perAddress, windowSeconds: failureWindow, now }),
    total: new FailureCounter({ failures: total, windowSeconds: failureWindow, now }),
  };

  /**
   * The live session the request carries, or 401. Each 401 counts against the
   * failed-authentication budgets; over either, the refusal is a 429 (a live
   * session is still served: its lookup is one indexed, cached query).
   */
  async function requireSession(c: Context<WebEnv>, client: string, at: number) {
    try {
      return await sessions.require(c, at);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      const wait = Math.max(failedAuthentication.perAddress.retryAfter(client), failedAuthentication.total.retryAfter('all'));
      failedAuthentication.perAddress.fail(client);
      failedAuthentication.total.fail('all');
      if (wait > 0) {
        throw new ApiError('urn:problem-type:rate-limited', `Too many requests without a live session from this address or in all. Retry in ${wait} seconds.`, {
          headers: { 'Retry-After': String(wait) },
        });
      }
      throw error;
    }
  }

  const app = new Hono<WebEnv>();
  app.use(requestLog(logger, { requestIdMaxLength: bounds.requestId, listener: 'web', ...(options.requestLines && { lines: options.requestLines }) }));

  const validator = createResponseValidator(contract.spec, options.responseValidation ?? 'strict', {
    handlerName: (operationId) =>
      options.handlers ? `${operationId} of the handlers given to createWebApp` : `accountHandlers.${operationId} in src/account/operations.ts`,
    report: (breach) => logger.error({ operationId: breach.operationId, violations: breach.violations }, breach.message),
  });

  for (const operation of contract.operations) {
    const scheme = operation.security.join(', ');
    if (scheme !== '' && scheme !== 'sessionCookie')
      throw new Error(`the account API takes sessionCookie or nothing, but ${operation.operationId} declares ${scheme}`);
  }
  bindOperations(app, {
    contract,
    handlers: options.handlers ?? accountHandlers,
    basePath: ACCOUNT_API_BASE,
    maxBodyBytes: limits.maxBodyBytes,
    async prepare(c, operation): Promise<AccountContext> {
      c.set('operation', operation);
      const at = now();
      const client = clientAddress(c);
      const quota = requests.take(client);
      if (!quota.allowed) {
        const { requests: allowed, windowSeconds } = limits.rateLimit;
        throw new ApiError(
          'urn:problem-type:rate-limited',
          `This address has sent ${allowed} requests in the current ${windowSeconds}-second window. Retry in ${quota.resetSeconds} seconds.`,
          { headers: { 'Retry-After': String(quota.resetSeconds) } },
        );
      }
      checkSameOrigin(c, options.origin);
      const session = operation.security.includes('sessionCookie') ? await requireSession(c, client, at) : await sessions.find(c, at);
      return { store, sessions, session, client, signInFailures, limits: accountLimits, now: at };
    },
    write(c, operation, result) {
      const response = answer(c, result);
      if (validator.mode !== 'off') {
        validator.check(operation.operationId, {
          status: response.status,
          headers: response.headers,
          body: result.body === undefined ? '' : JSON.stringify(result.body),
        });
      }
      return response;
    },
  });

  const page = (c: Context<WebEnv>, path: string) =>
    pageResponse(pages, path, { method: c.req.method, secure, headers: { 'x-request-id': c.get('requestId') } });
  app.get('/', (c) => page(c, '/'));
  app.get('/assets/*', (c) => page(c, c.req.path));
  app.get('/:page{[a-z-]+}', (c) => page(c, c.req.path));

  app.notFound((c) => {
    if (c.req.path === ACCOUNT_API_BASE || c.req.path.startsWith(`${ACCOUNT_API_BASE}/`)) {
      return problem(c, new ApiError('urn:problem-type:not-found', 'No operation of the account API has this path.'));
    }
    return page(c, c.req.path);
  });

  const unavailable = storeUnavailableProblems(logger, 2);
  app.onError((thrown, c) => {
    const error = thrown instanceof StoreUnavailable ? unavailable(c.get('requestId'), thrown) : thrown;
    if (error instanceof ApiError) {
      const response = problem(c, error);
      const operation = c.get('operation');
      if (!operation || validator.mode === 'off') return response;
      try {
        validator.check(operation.operationId, { status: response.status, headers: response.headers, body: problemText(c, error) });
        return response;
      } catch (breach) {
        return internalError(c, breach);
      }
    }
    return internalError(c, error);
  });

  function internalError(c: Context<WebEnv>, error: unknown): Response {
    if (error instanceof ContractBreach)
      logger.error({ requestId: c.get('requestId'), operationId: error.operationId, violations: error.violations }, error.message);
    else logger.error({ requestId: c.get('requestId'), err: error }, 'unhandled error');
    const detail =
      error instanceof ContractBreach
        ? `The answer of ${error.operationId} broke the account API contract, so it was not sent. It has been logged under the request id.`
        : 'The server failed to answer this request. It has been logged under the request id.';
    return problem(c, new ApiError('urn:problem-type:internal-error', detail));
  }

  function problem(c: Context<WebEnv>, error: ApiError): Response {
    return new Response(problemText(c, error), {
      status: error.status,
      headers: responseHeaders('application/problem+json', c.get('requestId'), undefined, error.headers),
    });
  }

  function problemText(c: Context<WebEnv>, error: ApiError): string {
    const body: ProblemBody = {
      type: error.type,
      title: error.title,
      status: error.status,
      detail: clip(error.message, bounds.detail),
      instance: clip(scrubKeys(c.req.path), bounds.instance),
      requestId: c.get('requestId'),
      ...(error.errors && { errors: error.errors }),
    };
    return JSON.stringify(body);
  }

  return app;
}

/** A handler's answer: JSON (or no body) with the API's security headers and the handler's own (Set-Cookie). */
function answer(c: Context<WebEnv>, result: HandlerResult): Response {
  const headers = responseHeaders(result.body === undefined ? undefined : 'application/json', c.get('requestId'), undefined, result.headers);
  return new Response(result.body === undefined ? null : JSON.stringify(result.body), { status: result.status, headers });
}

/** The TCP peer, as @hono/node-server passes the Node request in `c.env.incoming`; `unknown` in-process. */
function socketAddress(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket.remoteAddress ?? 'unknown';
}

import type { IncomingMessage } from 'node:http';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { scrubKeys } from '../keys/api-key.js';
import { type Store, StoreUnavailable } from '../store/store.js';
import { authenticate, type Caller, isAuthenticationFailure } from './authenticate.js';
import { bindOperations, type HandlerResult } from './bind-operations.js';
import { corsAllowedRequestHeaders, corsExposedResponseHeaders } from './cors-headers.js';
import { CursorCodec } from './cursor.js';
import { type ApiContext, type OperationHandlers, operationHandlers } from './operations.js';
import { ApiError, type ProblemBody } from './problems.js';
import { FixedWindowRateLimiter, type Quota, type RateLimiter } from './rate-limit.js';
import { type CompiledOperation, clip, type Limits, type RequestContract } from './request-contract.js';
import { type AppLogger, requestLog } from './request-log.js';
import type { RequestLines } from './request-lines.js';
import { responseHeaders } from './response-headers.js';
import { ContractBreach, createResponseValidator, type ResponseValidationMode } from './response-validation.js';
import { SharedRateLimiter } from './shared-rate-limit.js';
import { storeUnavailableProblems } from './unavailable.js';

export type { AppLogger };

export interface AppOptions {
  store: Store;
  /** The spec compiled into validators and limits (see `compileRequestContract`). */
  contract: RequestContract;
  logger: AppLogger;
  /** Where the one line per request goes; by default `logger.info` (the server passes its `BatchedRequestLines`). */
  requestLines?: RequestLines;
  /** Milliseconds since the epoch; a test passes a fake clock. */
  now?: () => number;
  /** Mount point of the API, e.g. `/api`; empty for the root. */
  basePath?: string;
  /** Overrides of the spec's `x-limits`. */
  limits?: Partial<Limits>;
  /** Origins allowed by CORS; CORS is off when empty. Credentials are never allowed. */
  corsOrigins?: string[];
  /** What each operation does; by default the project's own (`src/server/operations.ts`). */
  handlers?: OperationHandlers;
  /** Whether answers are checked against the spec before they are sent. Default `strict`. */
  responseValidation?: ResponseValidationMode;
  /**
   * `local` (the default): each process counts its own quota in memory, right for one process on SQLite.
   * `shared`: every process on the store's database shares one quota per key (`SharedRateLimiter`).
   */
  rateLimit?: 'local' | 'shared';
  /** Seconds a client is told to wait (`Retry-After`) when the store is unreachable. Default 2. */
  unavailableRetrySeconds?: number;
}

type Env = { Bindings: { incoming?: IncomingMessage }; Variables: { requestId: string; quota?: Quota; operation?: CompiledOperation } };

/**
 * Builds the Hono app for the contract. Runtime-agnostic: everything it needs
 * (store, clock, logger, limits) comes in, so it runs in tests through
 * `app.request()` as it does behind `@hono/node-server`.
 */
export function createApp(options: AppOptions): Hono<Env> {
  const { store, contract, logger } = options;
  const now = options.now ?? Date.now;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const limits: Limits = { ...contract.limits, ...options.limits };
  const limiter: RateLimiter =
    options.rateLimit === 'shared' ? new SharedRateLimiter({ store, ...limits.rateLimit, now }) : new FixedWindowRateLimiter({ ...limits.rateLimit, now });
  const unavailable = storeUnavailableProblems(logger, options.unavailableRetrySeconds ?? 2);
  // Per process even with the shared limiter: a protective budget, not a quota the contract promises.
  const failed = limits.failedAuthentication;
  const failuresByAddress = new FixedWindowRateLimiter({ requests: failed.perAddress, windowSeconds: failed.windowSeconds, now });
  const failuresInAll = new FixedWindowRateLimiter({ requests: failed.total, windowSeconds: failed.windowSeconds, now });
  // Read once, then kept; requests before that await the same read. A failed read (the database was away) is tried again by the next request.
  let cursorCodec: CursorCodec | undefined;
  let cursorRead: Promise<CursorCodec> | undefined;
  const cursors = (): CursorCodec | Promise<CursorCodec> => {
    if (cursorCodec) return cursorCodec;
    cursorRead ??= store.secret('cursor').then(
      (secret) => {
        cursorCodec = new CursorCodec(secret);
        return cursorCodec;
      },
      (error: unknown) => {
        cursorRead = undefined;
        throw error;
      },
    );
    return cursorRead;
  };
  Promise.resolve(cursors()).catch(() => undefined); // a failure surfaces on the first request that needs it
  const bounds = contract.problemBounds;

  const app = new Hono<Env>();

  app.use(requestLog(logger, { requestIdMaxLength: bounds.requestId, ...(options.requestLines && { lines: options.requestLines }) }));
  const corsHeaders = options.corsOrigins?.length
    ? cors({
        origin: options.corsOrigins,
        credentials: false,
        allowMethods: [...new Set([...contract.methodsByPath.values()].flat())],
        // Both lists come from the spec (cors-headers.ts): what the contract reads, and what its answers declare.
        allowHeaders: corsAllowedRequestHeaders(contract.spec, contract.operations),
        exposeHeaders: corsExposedResponseHeaders(contract.operations),
        maxAge: 600,
      })
    : undefined;
  // Hono's cors answers every OPTIONS itself, whatever the path: here a preflight is routed like any
  // request (`preflight` below, at the spec's paths only; the 404 elsewhere), and cors only adds its headers.
  if (corsHeaders) app.use((c, next) => (c.req.method === 'OPTIONS' ? next() : corsHeaders(c, next)));

  const validator = createResponseValidator(contract.spec, options.responseValidation ?? 'strict', {
    handlerName: (operationId) =>
      options.handlers ? `${operationId} of the handlers given to createApp` : `operationHandlers.${operationId} in src/server/operations.ts`,
    report: (breach) => logger.error({ operationId: breach.operationId, violations: breach.violations }, breach.message),
  });

  for (const operation of contract.operations) {
    if (!operation.security.includes('bearerAuth'))
      throw new Error(`every operation of this API takes bearerAuth, but ${operation.operationId} declares ${operation.security.join(', ') || 'none'}`);
  }
  bindOperations(app, {
    contract,
    handlers: options.handlers ?? operationHandlers,
    basePath,
    maxBodyBytes: limits.maxBodyBytes,
    async prepare(c, operation): Promise<ApiContext> {
      c.set('operation', operation);
      const at = now();
      const address = clientAddress(c);
      let caller: Caller;
      try {
        caller = await authenticate(c.req.header('authorization'), store, at, {
          connection: c.env?.incoming?.socket,
          // Over a failed-authentication budget, a key the cache already knows is still served; nothing else is looked up or refused with 401.
          admit(digest) {
            // A key the cache knows is served whatever the budgets say; asked first, it spares the usual request the two budget reads.
            if (digest && store.peekKeyByDigest?.(digest)) return;
            const byAddress = failuresByAddress.peek(address);
            const inAll = failuresInAll.peek(ALL);
            if (byAddress.allowed && inAll.allowed) return;
            if (!byAddress.allowed)
              throw refuse(
                c,
                byAddress,
                `This client has sent ${failed.perAddress} requests with missing or invalid credentials in the current ${failed.windowSeconds}-second window.`,
              );
            throw refuse(c, inAll, 'The service has refused too many invalid credentials in this window and now serves only keys it already knows.');
          },
        });
      } catch (error) {
        if (isAuthenticationFailure(error)) {
          failuresByAddress.take(address);
          failuresInAll.take(ALL);
        }
        throw error;
      }
      const quota = limiter.take(caller.keyId);
      applyQuota(c, quota instanceof Promise ? await quota : quota, limits);
      const codec = cursors();
      return { caller, store, cursors: codec instanceof Promise ? await codec : codec, now: at };
    },
    write(c, operation, result) {
      const response = answer(c, result);
      if (validator.mode !== 'off') validate(operation, response, result);
      return response;
    },
    // The preflight's 204 carries the headers of every other answer (the security set, the request id) beside cors's own.
    ...(corsHeaders && {
      preflight: async (c: Context<Env>) => {
        for (const [name, value] of Object.entries(responseHeaders(undefined, c.get('requestId'), undefined))) c.header(name, value);
        return (await corsHeaders(c, async () => {})) as Response;
      },
    }),
  });

  /** Checks what the handler answered, as it will go on the wire. */
  function validate(operation: CompiledOperation, response: Response, result: HandlerResult): void {
    validator.check(operation.operationId, {
      status: response.status,
      headers: response.headers,
      body: result.body === undefined ? '' : JSON.stringify(result.body),
    });
  }

  app.notFound((c) => problem(c, new ApiError('urn:problem-type:not-found', 'No operation of this API has this path.'), bounds));

  app.onError((thrown, c) => {
    const error = thrown instanceof StoreUnavailable ? unavailable(c.get('requestId'), thrown) : thrown;
    if (error instanceof ApiError) {
      const response = problem(c, error, bounds);
      const operation = c.get('operation');
      if (!operation || validator.mode === 'off') return response;
      try {
        validator.check(operation.operationId, { status: response.status, headers: response.headers, body: problemText(c, error, bounds) });
        return response;
      } catch (breach) {
        return internalError(c, breach);
      }
    }
    return internalError(c, error);
  });

  function internalError(c: Context<Env>, error: unknown): Response {
    if (error instanceof ContractBreach)
      logger.error({ requestId: c.get('requestId'), operationId: error.operationId, violations: error.violations }, error.message);
    else logger.error({ requestId: c.get('requestId'), err: error }, 'unhandled error');
    const detail =
      error instanceof ContractBreach
        ? `The answer of ${error.operationId} broke the API contract, so it was not sent. It has been logged under the request id.`
        : 'The server failed to answer this request. It has been logged under the request id.';
    return problem(c, new ApiError('urn:problem-type:internal-error', detail), bounds);
  }

  return app;
}

const ALL = 'all';

/** The peer's address as the socket reports it; requests made in-process (tests) share one. Behind a proxy this is the proxy. */
function clientAddress(c: Context<Env>): string {
  return c.env?.incoming?.socket.remoteAddress ?? 'in-process';
}

/** A 429 for a used-up budget, with the budget in the RateLimit-* headers. */
function refuse(c: Context<Env>, budget: Quota, reason: string): ApiError {
  c.set('quota', budget);
  return new ApiError('urn:problem-type:rate-limited', `${reason} Retry in ${budget.resetSeconds} seconds.`, {
    headers: { 'Retry-After': String(budget.resetSeconds) },
  });
}

/** Remembers the quota for the answer's RateLimit-* headers, and refuses the request when it is used up. */
function applyQuota(c: Context<Env>, quota: Quota, limits: Limits): void {
  c.set('quota', quota);
  if (!quota.allowed) {
    const { requests, windowSeconds } = limits.rateLimit;
    throw new ApiError(
      'urn:problem-type:rate-limited',
      `This API key has used its ${requests} requests for the current ${windowSeconds}-second window. Retry in ${quota.resetSeconds} seconds.`,
      { headers: { 'Retry-After': String(quota.resetSeconds) } },
    );
  }
}

/** A handler's answer as a response: JSON with the contract's headers, or no body. */
function answer(c: Context<Env>, result: HandlerResult): Response {
  const headers = responseHeaders(result.body === undefined ? undefined : 'application/json', c.get('requestId'), c.get('quota'), result.headers);
  return new Response(result.body === undefined ? null : JSON.stringify(result.body), { status: result.status, headers });
}

function problem(c: Context<Env>, error: ApiError, bounds: RequestContract['problemBounds']): Response {
  return new Response(problemText(c, error, bounds), {
    status: error.status,
    headers: responseHeaders('application/problem+json', c.get('requestId'), c.get('quota'), error.headers),
  });
}

function problemText(c: Context<Env>, error: ApiError, bounds: RequestContract['problemBounds']): string {
  const body: ProblemBody = {
    type: error.type,
    title: error.title,
    status: error.status,
    detail: clip(error.message, bounds.detail),
    // The path as asked, but a key pasted into it is not sent back (it may be logged or cached on the way).
    instance: clip(scrubKeys(c.req.path), bounds.instance),
    requestId: c.get('requestId'),
    ...(error.errors && { errors: error.errors }),
  };
  return JSON.stringify(body);
}

import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { Problem } from '../contract/types.js';
import { API_KEY_LIKE } from '../keys/api-key.js';
import type { Store } from '../store/store.js';
import { authenticate, type Caller } from './authenticate.js';
import { CursorCodec } from './cursor.js';
import { isJsonContentType, readJsonObject } from './json-body.js';
import { operationHandlers, type OperationContext } from './operations.js';
import { ApiError } from './problems.js';
import { FixedWindowRateLimiter, type Quota } from './rate-limit.js';
import { requestIdFor, responseHeaders } from './response-headers.js';
import { clip, toViolations, type CompiledOperation, type Limits, type RequestContract } from './request-contract.js';

/** The part of a pino logger the app uses, so tests can pass a recorder. */
export interface AppLogger {
  info(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** pino's level check; when `info` is off, the request line is not even assembled. */
  isLevelEnabled?(level: string): boolean;
}

export interface AppOptions {
  store: Store;
  /** The spec compiled into validators and limits (see `compileRequestContract`). */
  contract: RequestContract;
  logger: AppLogger;
  /** Milliseconds since the epoch; a test passes a fake clock. */
  now?: () => number;
  /** Mount point of the API, e.g. `/api`; empty for the root. */
  basePath?: string;
  /** Overrides of the spec's `x-limits`. */
  limits?: Partial<Limits>;
  /** Origins allowed by CORS; CORS is off when empty. Credentials are never allowed. */
  corsOrigins?: string[];
}

type Env = { Variables: { requestId: string; quota?: Quota } };

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
  const limiter = new FixedWindowRateLimiter({ ...limits.rateLimit, now });
  const cursors = new CursorCodec(store.secret('cursor'));
  const bounds = contract.problemBounds;

  const app = new Hono<Env>();

  const logRequests = logger.isLevelEnabled?.('info') ?? true;
  app.use(async (c, next) => {
    const started = performance.now();
    c.set('requestId', requestIdFor(c.req.header('x-request-id'), bounds.requestId));
    await next();
    if (!logRequests) return;
    logger.info({
      requestId: c.get('requestId'),
      method: c.req.method,
      // The path only: a query string may carry anything, and a key pasted into a URL is scrubbed.
      path: c.req.path.replace(API_KEY_LIKE, 'tka_[REDACTED]'),
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
  });
  if (options.corsOrigins?.length) {
    app.use(
      cors({
        origin: options.corsOrigins,
        credentials: false,
        allowMethods: [...new Set([...contract.methodsByPath.values()].flat())],
        allowHeaders: ['Authorization', 'Content-Type'],
        exposeHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id'],
        maxAge: 600,
      }),
    );
  }

  for (const operation of contract.operations) {
    const handler = operationHandlers[operation.operationId as keyof typeof operationHandlers] as
      | ((input: unknown, caller: Caller, context: OperationContext) => unknown)
      | undefined;
    if (!handler) throw new Error(`the spec declares ${operation.operationId}, which the server does not implement`);
    const source = operation.validateBody ? 'body' : 'query';
    const route = async (c: Context<Env>) => {
      const caller = authenticate(c.req.header('authorization'), store, now());
      applyQuota(c, limiter.take(caller.keyId), limits);
      const input = await readInput(c, operation, limits.maxBodyBytes, bounds);
      const body = JSON.stringify(handler(input, caller, { store, cursors, source }));
      return new Response(body, { status: 200, headers: responseHeaders('application/json', c.get('requestId'), c.get('quota')) });
    };
    for (const path of routePaths(basePath, operation.path)) app.on(operation.method, path, route);
  }

  app.notFound((c) => {
    const path = basePath && c.req.path.startsWith(basePath) ? c.req.path.slice(basePath.length) || '/' : c.req.path;
    const methods = contract.methodsByPath.get(path);
    if (methods) {
      return problem(c, new ApiError('urn:problem-type:method-not-allowed', `${c.req.method} is not allowed here; use ${methods.join(', ')}.`, { headers: { Allow: methods.join(', ') } }), bounds);
    }
    return problem(c, new ApiError('urn:problem-type:not-found', 'No operation of this API has this path.'), bounds);
  });

  app.onError((error, c) => {
    if (error instanceof ApiError) return problem(c, error, bounds);
    logger.error({ requestId: c.get('requestId'), err: error }, 'unhandled error');
    return problem(c, new ApiError('urn:problem-type:internal-error', 'The server failed to answer this request. It has been logged under the request id.'), bounds);
  });

  return app;
}

/** `POST {base_url}/` answers at the mount point with and without its trailing slash. */
function routePaths(basePath: string, path: string): string[] {
  if (path !== '/') return [basePath + path];
  return basePath ? [basePath, `${basePath}/`] : ['/'];
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

/** Reads, parses and validates the operation's options against the spec, in the order the contract documents. */
async function readInput(c: Context, operation: CompiledOperation, maxBodyBytes: number, bounds: RequestContract['problemBounds']): Promise<unknown> {
  let body: Record<string, unknown> | undefined;
  if (operation.validateBody) {
    if (!isJsonContentType(c.req.header('content-type'), operation.bodyMediaTypes)) {
      throw new ApiError('urn:problem-type:unsupported-media-type', 'Send the body as `Content-Type: application/json`.');
    }
    body = await readJsonObject(c.req.raw, maxBodyBytes);
  }
  const query = readQuery(c);
  const violations = [];
  if (body && !operation.validateBody?.(body)) violations.push(...toViolations('body', operation.validateBody!, bounds));
  if (!operation.validateQuery(query)) violations.push(...toViolations('query', operation.validateQuery, bounds));
  if (violations.length > 0) {
    const count = violations.length === 1 ? '1 place' : `${violations.length} places`;
    throw new ApiError('urn:problem-type:validation-failed', `The request breaks the contract in ${count}.`, { errors: violations.slice(0, bounds.errors) });
  }
  return body ?? query;
}

/** The query string as an object: one value stays a string, a repeated name becomes an array (which the schema then rejects). */
function readQuery(c: Context): Record<string, unknown> {
  if (!c.req.url.includes('?')) return {};
  return Object.fromEntries(Object.entries(c.req.queries()).map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
}

function problem(c: Context<Env>, error: ApiError, bounds: RequestContract['problemBounds']): Response {
  const body: Problem = {
    type: error.type,
    title: error.title,
    status: error.status,
    detail: clip(error.message, bounds.detail),
    instance: clip(c.req.path, bounds.instance),
    requestId: c.get('requestId'),
    ...(error.errors && { errors: error.errors }),
  };
  return new Response(JSON.stringify(body), { status: error.status, headers: responseHeaders('application/problem+json', c.get('requestId'), c.get('quota'), error.headers) });
}

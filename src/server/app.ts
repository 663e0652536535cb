import type { Hono } from 'hono';
import type { AppLogger } from '../http/app-logger.js';
import type { ClientAddress } from '../http/client-address.js';
import { createContractApp } from '../http/contract-app.js';
import { FailureBudget, SharedFailureBudget } from '../http/failure-budget.js';
import type { KernelEnv } from '../http/kernel-env.js';
import { FixedWindowRateLimiter, quota, type RateLimiter } from '../http/rate-limit.js';
import type { Limits, RequestContract } from '../http/request-contract.js';
import type { RequestLines } from '../http/request-lines.js';
import type { ResponseValidationMode } from '../http/response-validation.js';
import { SharedRateLimiter } from '../http/shared-rate-limit.js';
import type { Telemetry } from '../http/telemetry.js';
import { databaseSecrets, type SecretSource } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import type { Caller } from './bearer-key.js';
import { bearerKey } from './bearer-key.js';
import { CursorCodec } from './cursor.js';
import { type ApiContext, type OperationHandlers, operationHandlers } from './operations.js';

export interface AppOptions {
  store: Store;
  /** The spec compiled into validators and limits (see `compileRequestContract`). */
  contract: RequestContract;
  logger: AppLogger;
  /** Where the one line per request goes; by default `logger.info` (the server passes its `destinationRequestLines`). */
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
   * `shared`: every process on the store's database shares one quota per key (`SharedRateLimiter`) and one
   * failed-authentication budget per client address (`SharedFailureBudget`).
   */
  rateLimit?: 'local' | 'shared';
  /** Seconds a client is told to wait (`Retry-After`) when the store is unreachable. Default 2. */
  unavailableRetrySeconds?: number;
  /** Where the cursor secret comes from (`loadSecrets`: the environment's, else the database's). Default: the database's. */
  secrets?: SecretSource;
  /** The caller's address (`clientAddress(config.trustedProxies)`), for the failed-authentication budget and the request log; by default the socket's peer. */
  clientAddress?: ClientAddress;
  /** The prefix an IPv6 client's failed-authentication budget is counted by (`CLIENT_IPV6_PREFIX`, default 64: `client-key.ts`). */
  clientIpv6PrefixLength?: number;
  /** The metrics and the request spans, when they are on (`src/ops/`). */
  telemetry?: Telemetry | undefined;
}

/**
 * The public API: the contract kernel (`src/http/contract-app.ts`) configured with this API's handlers,
 * the bearer key as its one security scheme, and each key's quota. Runtime-agnostic: everything it needs
 * (store, clock, logger, limits) comes in, so it runs in tests through `app.request()` as it does behind
 * `@hono/node-server`.
 */
export function createApp(options: AppOptions): Hono<KernelEnv<{ caller: Caller }>> {
  const { store, contract } = options;
  const now = options.now ?? Date.now;
  const limits: Limits = { ...contract.limits, ...options.limits };
  const limiter: RateLimiter =
    options.rateLimit === 'shared' ? new SharedRateLimiter({ store, ...limits.rateLimit, now }) : new FixedWindowRateLimiter({ ...limits.rateLimit, now });
  const secrets = options.secrets ?? databaseSecrets(store);
  const cursors = cursorCodec(secrets);
  const { requests, windowSeconds } = limits.rateLimit;
  // The source: every endpoint takes the bearer key. An operation added without it is refused at startup, not served open.
  for (const operation of contract.operations) {
    if (!operation.security.includes('bearerAuth'))
      throw new Error(`every operation of this API takes bearerAuth, but ${operation.operationId} declares ${operation.security.join(', ') || 'none'}`);
  }

  return createContractApp({
    name: 'this API',
    contract,
    handlers: options.handlers ?? operationHandlers,
    handlerName: (operationId) =>
      options.handlers ? `${operationId} of the handlers given to createApp` : `operationHandlers.${operationId} in src/server/operations.ts`,
    basePath: (options.basePath ?? '').replace(/\/+$/, ''),
    maxBodyBytes: limits.maxBodyBytes,
    logger: options.logger,
    requestLines: options.requestLines,
    clientAddress: options.clientAddress,
    api: 'main',
    telemetry: options.telemetry,
    security: {
      bearerAuth: bearerKey({
        store,
        now,
        failures:
          options.rateLimit === 'shared'
            ? new SharedFailureBudget({ store, secrets, scope: 'failed-authentication', ...limits.failedAuthentication, now })
            : new FailureBudget({ ...limits.failedAuthentication, now }),
        ipv6PrefixLength: options.clientIpv6PrefixLength,
      }),
    },
    guards: {
      afterSecurity: [
        quota<{ caller: Caller }>({
          limiter,
          keyOf: (c) => c.get('caller').keyId,
          refusal: `This API key has used its ${requests} requests for the current ${windowSeconds}-second window.`,
          headers: true,
        }),
      ],
    },
    context(c): ApiContext | Promise<ApiContext> {
      // Built at once once the cursor secret has been read: the usual request takes no promise here.
      const build = (codec: CursorCodec): ApiContext => ({ caller: c.get('caller'), store, cursors: codec, now: now() });
      const codec = cursors();
      return codec instanceof Promise ? codec.then(build) : build(codec);
    },
    corsOrigins: options.corsOrigins,
    responseValidation: options.responseValidation,
    unavailableRetrySeconds: options.unavailableRetrySeconds,
  });
}

/**
 * The cursor codec, on the store's cursor secret: read once, then kept; requests before that await the
 * same read. A failed read (the database was away) is tried again by the next request that needs it.
 */
function cursorCodec(secrets: SecretSource): () => CursorCodec | Promise<CursorCodec> {
  let codec: CursorCodec | undefined;
  let reading: Promise<CursorCodec> | undefined;
  const cursors = (): CursorCodec | Promise<CursorCodec> => {
    if (codec) return codec;
    reading ??= secrets('cursor').then(
      (ring) => {
        codec = new CursorCodec(ring);
        return codec;
      },
      (error: unknown) => {
        reading = undefined;
        throw error;
      },
    );
    return reading;
  };
  Promise.resolve(cursors()).catch(() => undefined); // a failure surfaces on the first request that needs it
  return cursors;
}

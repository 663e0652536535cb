import type { Context, Hono } from 'hono';
import type { AccountLimits } from '../contract/limits.js';
import type { AppLogger } from '../http/app-logger.js';
import type { ClientAddress } from '../http/client-address.js';
import { clientBudgetKey } from '../http/client-key.js';
import { createContractApp } from '../http/contract-app.js';
import { FailureBudget, SharedFailureBudget } from '../http/failure-budget.js';
import { type Guard, type KernelEnv, kernelOf } from '../http/kernel-env.js';
import { FixedWindowRateLimiter, quota } from '../http/rate-limit.js';
import type { Limits, RequestContract } from '../http/request-contract.js';
import type { RequestLines } from '../http/request-lines.js';
import type { ResponseValidationMode } from '../http/response-validation.js';
import { SharedRateLimiter } from '../http/shared-rate-limit.js';
import type { Telemetry } from '../http/telemetry.js';
import type { PageAssets } from '../pages/assets.js';
import { FORM_PAGES, formFallback, pageResponse } from '../pages/serve.js';
import { databaseSecrets, type SecretSource } from '../store/secrets.js';
import type { SessionRecord, Store } from '../store/store.js';
import { type DeviceRequest, Devices } from './devices.js';
import { type AccountContext, type AccountHandlers, accountHandlers } from './operations.js';
import { checkSameOrigin } from './same-origin.js';
import { sessionCookie } from './session-cookie.js';
import { Sessions, sessionCookieFor } from './sessions.js';
import { StoredAttemptLimit } from './sign-in-limiter.js';

export interface WebAppOptions {
  store: Store;
  /** The account spec compiled into validators and limits (`compileRequestContract`). */
  contract: RequestContract;
  /** The account spec's own limits (`readAccountLimits`). */
  accountLimits: AccountLimits;
  logger: AppLogger;
  /** Where the one line per request goes; by default `logger.info` (the server passes its `destinationRequestLines`). */
  requestLines?: RequestLines;
  /** The pages and their assets (`buildPages`). */
  pages: PageAssets;
  /** Milliseconds since the epoch; a test passes a fake clock. */
  now?: () => number;
  /**
   * The web application's public origin (`WEB_ORIGIN`), e.g. `https://keys.example.com`.
   * An `https` origin makes the session cookie `__Host-session` with `Secure`. Unset in
   * local development: the cookie is `session`, a session is bound to the `http://<Host>`
   * it was started at, and unsafe requests must come from a loopback `http://<Host>` page.
   */
  origin?: string;
  /** The caller's address (`clientAddress(config.trustedProxies)`), for the per-client limits and the request log; by default the socket's peer. */
  clientAddress?: ClientAddress;
  /** The prefix an IPv6 client's per-client limits count it by (`CLIENT_IPV6_PREFIX`, default 64: `client-key.ts`). */
  clientIpv6PrefixLength?: number;
  /**
   * `local` (the default): each process counts the request quota and the failed-authentication budget in memory,
   * right for one process on SQLite. `shared`: every process on the store's database counts one quota per session,
   * device or address (`SharedRateLimiter` over the shared budgets) and one failed-authentication budget per address
   * (`SharedFailureBudget`).
   */
  budgets?: 'local' | 'shared';
  /** Overrides of the account spec's `x-limits` body size and request rate. */
  limits?: Partial<Limits>;
  /** What each operation does; by default the project's own (`src/account/operations.ts`). */
  handlers?: AccountHandlers;
  /** Where the device-cookie and sign-in counter secrets come from (`loadSecrets`). Default: the database's. */
  secrets?: SecretSource;
  /** Whether answers are checked against the account spec before they are sent. Default `strict`. */
  responseValidation?: ResponseValidationMode;
  /** The metrics and the request spans, when they are on (`src/ops/`). */
  telemetry?: Telemetry | undefined;
}

type WebVariables = { session?: SessionRecord; device?: DeviceRequest };

/** Where the account API is mounted on the web application's listener. */
export const ACCOUNT_API_BASE = '/api';

/**
 * The web application: the pages (static HTML, one script, one stylesheet) and the account API under
 * `/api`, the contract kernel configured with the account handlers, the session cookie as its security
 * scheme, a per-client quota and the same-origin check; typed from `generated/account.d.ts`. It runs
 * on its own listener; over plain HTTP its sessions are bound to their origin (`Sessions`).
 */
export function createWebApp(options: WebAppOptions): Hono<KernelEnv<WebVariables>> {
  const { store, contract, pages, accountLimits } = options;
  const now = options.now ?? Date.now;
  const limits: Limits = { ...contract.limits, ...options.limits };
  const secure = options.origin?.startsWith('https://') ?? false;
  const sessions = new Sessions(store, sessionCookieFor(secure), accountLimits.session, options.origin);
  // In the store: every instance on one database counts an account's, a client's and a device's sign-in attempts together.
  const { signIn } = accountLimits;
  const secrets = options.secrets ?? databaseSecrets(store);
  const rule = (free: number) => ({
    free,
    backoffMs: signIn.backoffSeconds * 1000,
    maxBackoffMs: signIn.maxBackoffSeconds * 1000,
    forgetMs: signIn.windowSeconds * 1000,
  });
  const signInAttempts = {
    perAccount: new StoredAttemptLimit({ store, secrets, scope: 'account', rule: rule(signIn.failuresPerAccount), now }),
    perClient: new StoredAttemptLimit({ store, secrets, scope: 'client', rule: rule(signIn.failuresPerClient), now }),
    perDevice: new StoredAttemptLimit({ store, secrets, scope: 'device', rule: rule(signIn.failuresPerDevice), now }),
  };
  // Right passwords at a rate: successesPer… at once, then one each successIntervalSeconds; forgotten after as many quiet intervals.
  const successIntervalMs = signIn.successIntervalSeconds * 1000;
  const successRule = (free: number) => ({ free, backoffMs: successIntervalMs, maxBackoffMs: successIntervalMs, forgetMs: free * successIntervalMs });
  const signInSuccesses = {
    perAccount: new StoredAttemptLimit({ store, secrets, scope: 'account-success', rule: successRule(signIn.successesPerAccount), now }),
    perClient: new StoredAttemptLimit({ store, secrets, scope: 'client-success', rule: successRule(signIn.successesPerClient), now }),
  };
  const devices = new Devices(secrets, { secure, lifetimeSeconds: signIn.deviceSeconds });
  // Sign-ups per client, in the store too: past perClient, a client waits windowSeconds after its latest.
  const signUpWindowMs = accountLimits.signUp.windowSeconds * 1000;
  const signUpAttempts = new StoredAttemptLimit({
    store,
    secrets,
    scope: 'sign-up',
    rule: { free: accountLimits.signUp.perClient, backoffMs: signUpWindowMs, maxBackoffMs: signUpWindowMs, forgetMs: signUpWindowMs },
    now,
  });
  const { requests, windowSeconds: requestWindow } = limits.rateLimit;
  const page = (c: Context<KernelEnv<WebVariables>>, path: string) =>
    pageResponse(pages, path, { method: c.req.method, secure, headers: { 'x-request-id': c.get('requestId') } });

  return createContractApp({
    name: 'the account API',
    contract,
    handlers: options.handlers ?? accountHandlers,
    handlerName: (operationId) =>
      options.handlers ? `${operationId} of the handlers given to createWebApp` : `accountHandlers.${operationId} in src/account/operations.ts`,
    basePath: ACCOUNT_API_BASE,
    maxBodyBytes: limits.maxBodyBytes,
    logger: options.logger,
    requestLines: options.requestLines,
    listener: 'web',
    api: 'account',
    telemetry: options.telemetry,
    clientAddress: options.clientAddress,
    security: {
      sessionCookie: sessionCookie({
        sessions,
        now,
        failures:
          options.budgets === 'shared'
            ? new SharedFailureBudget({ store, secrets, scope: 'failed-session', ...limits.failedAuthentication, now })
            : new FailureBudget({ ...limits.failedAuthentication, now }),
        ipv6PrefixLength: options.clientIpv6PrefixLength,
      }),
    },
    guards: {
      beforeSecurity: [
        quota<WebVariables>({
          limiter:
            options.budgets === 'shared'
              ? new SharedRateLimiter({ store, budget: { name: 'account-quota', secrets }, ...limits.rateLimit, now })
              : new FixedWindowRateLimiter({ ...limits.rateLimit, now }),
          // A request with a live session counts against that session's own quota, and one carrying a valid device
          // cookie against that cookie's account, so that others at its address (an office, a NAT, an attacker next
          // door) never use it up; any other request, against its client's (an IPv6 client by its /64).
          keyOf: async (c) => {
            if (c.get('operation')?.security.includes('sessionCookie')) {
              const session = await sessions.find(c, now());
              if (session) {
                c.set('session', session);
                return `session ${session.id}`;
              }
            }
            const device = await devices.find(c).catch(() => undefined);
            if (device) return `device ${device.userId}`;
            return `address ${clientBudgetKey(c.get('client'), options.clientIpv6PrefixLength)}`;
          },
          refusal: (key) =>
            `This ${key.startsWith('session ') ? 'session' : key.startsWith('device ') ? 'browser' : 'address'} has sent ${requests} requests in the current ${requestWindow}-second window.`,
          headers: false,
        }),
        (c) => checkSameOrigin(c, options.origin),
        deviceCookie(devices),
      ],
    },
    async context(c): Promise<AccountContext> {
      const at = now();
      const session = c.get('session') ?? (await sessions.find(c, at));
      if (session) kernelOf(c).set('principal', { userId: session.user.id });
      return {
        store,
        sessions: sessions.at(c),
        session,
        // The sign-in and sign-up limits per client count an IPv6 client by its /64, as every budget does.
        client: clientBudgetKey(c.get('client'), options.clientIpv6PrefixLength),
        device: deviceOf(c),
        signInAttempts,
        signInSuccesses,
        signUpAttempts,
        limits: accountLimits,
        now: at,
      };
    },
    responseValidation: options.responseValidation,
    pages: {
      routes(app) {
        app.get('/', (c) => page(c, '/'));
        app.get('/assets/*', (c) => page(c, c.req.path));
        app.get('/:page{[a-z-]+}', (c) => page(c, c.req.path));
        for (const path of FORM_PAGES) app.post(path, (c) => formFallback(path, { secure, headers: { 'x-request-id': c.get('requestId') } }));
      },
      // Under /api, a path no operation has is the account API's 404 problem; anywhere else, the pages' own answer.
      notFound: (c) => (c.req.path === ACCOUNT_API_BASE || c.req.path.startsWith(`${ACCOUNT_API_BASE}/`) ? undefined : page(c, c.req.path)),
    },
  });
}

/** The request's device cookie, which `deviceCookie` runs before every operation to give. */
function deviceOf(c: Context<KernelEnv<WebVariables>>): DeviceRequest {
  const device = c.get('device');
  if (!device) throw new Error('the deviceCookie middleware did not run before this operation');
  return device;
}

/**
 * Gives the handlers the request's device cookie (`DeviceRequest`); a new one a handler issues is sent with its
 * answer (the kernel's `setCookies`, beside the session cookie the answer sets), only when the answer succeeds.
 */
function deviceCookie(devices: Devices): Guard<WebVariables> {
  return (c) => {
    c.set('device', {
      find: () => devices.find(c),
      make: (userId, credentialVersion) => devices.issue(userId, credentialVersion),
      issue: async (userId, credentialVersion) => {
        const issued = await devices.issue(userId, credentialVersion);
        const kernel = kernelOf(c);
        kernel.set('setCookies', [...(kernel.get('setCookies') ?? []), issued]);
      },
    });
  };
}

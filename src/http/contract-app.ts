import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import type { OperationShape } from '../contract/types.js';
import { StoreUnavailable, UnstorableInput } from '../store/store.js';
import type { AppLogger } from './app-logger.js';
import { bindOperations, type HandlerMap, type HandlerResult } from './bind-operations.js';
import type { ClientAddress } from './client-address.js';
import { corsAllowedRequestHeaders, corsExposedResponseHeaders } from './cors-headers.js';
import { jsonText } from './json-text.js';
import { type Guard, type KernelEnv, kernelOf } from './kernel-env.js';
import { NotImplementedError } from './not-implemented.js';
import { ApiError, problemText } from './problems.js';
import type { CompiledOperation, RequestContract } from './request-contract.js';
import type { RequestLines } from './request-lines.js';
import { requestLog } from './request-log.js';
import { responseHeaders } from './response-headers.js';
import { ContractBreach, createResponseValidator, type ResponseValidationMode } from './response-validation.js';
import type { Telemetry } from './telemetry.js';
import { storeUnavailableProblems } from './unavailable.js';
import { unstorableInputProblem } from './unstorable-input.js';

export interface ContractAppOptions<Operations extends { [Id in keyof Operations]: OperationShape }, HandlerContext, Variables extends object> {
  /** How messages name the API: `this API`, `the account API`. */
  name: string;
  /** The spec compiled into validators and limits (`compileRequestContract`). */
  contract: RequestContract;
  handlers: HandlerMap<Operations, HandlerContext>;
  /** Where a reader finds an operation's handler, named when its answer breaks the contract. */
  handlerName: (operationId: string) => string;
  /** Mount point of the operations, e.g. `/api`; empty for the root. */
  basePath: string;
  maxBodyBytes: number;
  logger: AppLogger;
  /** Where the one line per request goes; by default `logger.info`. */
  requestLines?: RequestLines | undefined;
  /** Names the listener in each request line, when a process has more than one. */
  listener?: string;
  /** The contract's name in `redocly.yaml` (`main`, `account`): the `api` label of its metrics and spans. Default `main`. */
  api?: string;
  /** The metrics and the request spans, when they are on (`src/ops/`); nothing is measured without it. */
  telemetry?: Telemetry | undefined;
  /** Who is calling: the one resolver (`clientAddress(config.trustedProxies)`); by default the TCP peer. */
  clientAddress?: ClientAddress | undefined;
  /**
   * The check of each security scheme of the spec (`components.securitySchemes`), by name: an
   * operation runs the one its `security` names, and one that names none runs none. A scheme the spec's
   * operations use without an entry here fails at startup.
   */
  security: Readonly<Record<string, Guard<Variables>>>;
  /** Checks every operation runs before its security (a per-client quota, the same-origin check) and after it (a per-key quota). */
  guards?: { beforeSecurity?: readonly Guard<Variables>[]; afterSecurity?: readonly Guard<Variables>[] };
  /** What the handlers work with, built once the middleware has let the request through. */
  context: (c: Context<KernelEnv<Variables>>, operation: CompiledOperation) => HandlerContext | Promise<HandlerContext>;
  /** Origins allowed by CORS; CORS is off when empty. Credentials are never allowed. */
  corsOrigins?: readonly string[] | undefined;
  /** Whether answers are checked against the spec before they are sent. Default `strict`. */
  responseValidation?: ResponseValidationMode | undefined;
  /** Seconds a client is told to wait (`Retry-After`) when the store is unreachable. Default 2. */
  unavailableRetrySeconds?: number | undefined;
  /**
   * Routes of the app's own beside the contract's, and what a path no route has gets instead of the
   * contract's 404 (the web application's pages); return undefined to leave the path to the 404 problem.
   */
  pages?: {
    routes: (app: Hono<KernelEnv<Variables>>) => void;
    notFound: (c: Context<KernelEnv<Variables>>) => Response | Promise<Response> | undefined;
  };
}

/**
 * The contract kernel: given a compiled contract, its handlers and its security middleware, builds the
 * Hono app both APIs run on. Request id and log line, CORS when asked, the operation seam (every
 * operation of the spec a route, 405 with `Allow` at a known path, the app's 404 elsewhere), security and
 * guards per operation, the answer's JSON and headers, response validation outside production, and the
 * one problem writer for everything refused or failed. Runtime-agnostic: it runs in tests through
 * `app.request()` as it does behind `@hono/node-server`.
 */
export function createContractApp<Operations extends { [Id in keyof Operations]: OperationShape }, HandlerContext, Variables extends object>(
  options: ContractAppOptions<Operations, HandlerContext, Variables>,
): Hono<KernelEnv<Variables>> {
  type E = KernelEnv<Variables>;
  const { contract, logger, name } = options;
  const bounds = contract.problemBounds;
  const unavailable = storeUnavailableProblems(logger, options.unavailableRetrySeconds ?? 2);
  const app = new Hono<E>();

  app.use(
    requestLog(logger, {
      requestIdMaxLength: bounds.requestId,
      ...(options.listener && { listener: options.listener }),
      ...(options.requestLines && { lines: options.requestLines }),
      ...(options.clientAddress && { clientAddress: options.clientAddress }),
      ...(options.api && { api: options.api }),
      observer: options.telemetry?.observer,
    }),
  );
  // The request's span covers everything after the request log, so the log line can carry its trace id.
  const tracing = options.telemetry?.tracing;
  if (tracing) app.use((c, next) => tracing(kernelOf(c), next));
  const corsHeaders = options.corsOrigins?.length
    ? cors({
        origin: [...options.corsOrigins],
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
    handlerName: options.handlerName,
    report: (breach) => logger.error({ operationId: breach.operationId, violations: breach.violations }, breach.message),
  });

  const before = options.guards?.beforeSecurity ?? [];
  const after = options.guards?.afterSecurity ?? [];
  bindOperations(app, {
    contract,
    handlers: options.handlers,
    basePath: options.basePath,
    maxBodyBytes: options.maxBodyBytes,
    checks: (operation) => {
      const enter: Guard<Variables> = (c) => {
        kernelOf(c).set('operation', operation);
      };
      return [enter, ...before, ...securityOf(operation, options.security), ...after];
    },
    prepare: options.context,
    write(c, operation, result) {
      const { response, text } = answer(kernelOf(c), result);
      if (validator.mode !== 'off') validator.check(operation.operationId, { status: response.status, headers: response.headers, body: text });
      return response;
    },
    // The preflight's 204 carries the headers of every other answer (the security set, the request id) beside cors's own.
    ...(corsHeaders && {
      preflight: async (c: Context<E>) => {
        for (const [header, value] of Object.entries(responseHeaders(undefined, c.get('requestId'), undefined))) c.header(header, value);
        return (await corsHeaders(c, async () => {})) as Response;
      },
    }),
  });
  options.pages?.routes(app);

  const notFound = (c: Context<E>) => problem(c, new ApiError('urn:problem-type:not-found', `No operation of ${name} has this path.`));
  const pagesNotFound = options.pages?.notFound;
  app.notFound(pagesNotFound ? async (c) => (await pagesNotFound(c)) ?? notFound(c) : notFound);

  app.onError((thrown, c) => {
    const error =
      thrown instanceof StoreUnavailable
        ? unavailable(c.get('requestId'), thrown)
        : thrown instanceof UnstorableInput
          ? unstorableInputProblem(logger, c.get('requestId'), thrown)
          : thrown;
    if (!(error instanceof ApiError)) return internalError(c, error);
    const operation = c.get('operation');
    const response = problem(c, error);
    if (!operation || validator.mode === 'off') return response;
    try {
      validator.check(operation.operationId, { status: response.status, headers: response.headers, body: text(c, error) });
      return response;
    } catch (breach) {
      return internalError(c, breach);
    }
  });

  function internalError(c: Context<E>, error: unknown): Response {
    if (error instanceof ContractBreach)
      logger.error({ requestId: c.get('requestId'), operationId: error.operationId, violations: error.violations }, error.message);
    else logger.error({ requestId: c.get('requestId'), err: error }, 'unhandled error');
    const detail =
      error instanceof ContractBreach
        ? `The answer of ${error.operationId} broke the contract of ${name}, so it was not sent. It has been logged under the request id.`
        : error instanceof NotImplementedError
          ? 'This operation is in the contract but not implemented yet. It has been logged under the request id.'
          : 'The server failed to answer this request. It has been logged under the request id.';
    return problem(c, new ApiError('urn:problem-type:internal-error', detail));
  }

  function text(c: Context<E>, error: ApiError): string {
    return problemText(error, { requestId: c.get('requestId'), instance: c.req.path }, bounds);
  }

  function problem(c: Context<E>, error: ApiError): Response {
    kernelOf(c).set('problem', { type: error.type, reason: error.reason });
    return new Response(text(c, error), {
      status: error.status,
      headers: responseHeaders('application/problem+json', c.get('requestId'), c.get('quota'), error.headers),
    });
  }

  return app;
}

/** The check of the one security scheme an operation names; none for an operation that names none. */
function securityOf<Variables extends object>(operation: CompiledOperation, security: Readonly<Record<string, Guard<Variables>>>): Guard<Variables>[] {
  if (operation.security.length === 0) return [];
  if (operation.security.length > 1)
    throw new Error(`${operation.operationId} declares ${operation.security.join(', ')}: an operation takes one security scheme here`);
  const scheme = operation.security[0] as string;
  const guard = security[scheme];
  if (!guard) throw new Error(`${operation.operationId} declares the security scheme ${scheme}, which this app has no middleware for`);
  return [guard];
}

/**
 * A handler's answer as a response: JSON (or no body) with the contract's headers, the handler's own and the
 * cookies issued on the way (`setCookies`), and the text sent, which the response validation reads (serialised once).
 */
function answer(c: Context<KernelEnv>, result: HandlerResult): { response: Response; text: string } {
  const text = result.body === undefined ? '' : jsonText(result.body);
  const headers = responseHeaders(result.body === undefined ? undefined : 'application/json', c.get('requestId'), c.get('quota'), result.headers);
  const cookies = result.status < 300 ? c.get('setCookies') : undefined;
  // A plain object keeps @hono/node-server on its fast path; `Headers` only when a header has two values.
  const init = { status: result.status, headers: cookies ? withCookies(headers, cookies) : headers };
  return { response: new Response(result.body === undefined ? null : text, init), text };
}

function withCookies(headers: Record<string, string>, cookies: readonly string[]): Headers {
  const all = new Headers(headers);
  for (const cookie of cookies) all.append('set-cookie', cookie);
  return all;
}

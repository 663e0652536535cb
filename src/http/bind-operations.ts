import type { Context, Env, Hono } from 'hono';
import type { InputOf, OperationShape, ResultOf } from '../contract/types.js';
import { ApiError } from './problems.js';
import { InputViolation, locateViolation, type RequestInput, readInput } from './read-input.js';
import { type CompiledOperation, type RequestContract, toRoutePath } from './request-contract.js';

/** One operation's handler: the spec's input for it in, one of the spec's answers for it out. */
export type Handler<Operation extends OperationShape, HandlerContext> = (input: InputOf<Operation>, context: HandlerContext) => Promise<ResultOf<Operation>>;

/**
 * A handler for every operation of a contract, typed from its generated
 * `operations`: an operation without a handler, an input field read with the
 * wrong type, or an answer the spec does not document does not compile.
 */
export type HandlerMap<Operations extends { [Id in keyof Operations]: OperationShape }, HandlerContext> = {
  [Id in keyof Operations]: Handler<Operations[Id], HandlerContext>;
};

/** A check run before a handler, for any Hono environment (`Guard` in `kernel-env.ts` is this for a contract app). */
export type Check<E extends Env> = (c: Context<E>) => void | Promise<void>;

/** What the seam writes: the status, JSON body (if any) and headers a handler answered with. */
export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface BindOptions<Operations extends { [Id in keyof Operations]: OperationShape }, HandlerContext, E extends Env> {
  contract: RequestContract;
  handlers: HandlerMap<Operations, HandlerContext>;
  /** Mount point, e.g. `/api`; empty for the root. */
  basePath: string;
  maxBodyBytes: number;
  /**
   * The checks an operation runs before its handler (security, quotas), in order, each refusing by throwing an
   * `ApiError`; each returns a promise only when it has to wait (`Guard`).
   */
  checks?: (operation: CompiledOperation) => readonly Check<E>[];
  /** Builds what the handler works with, once the checks have let the request through. */
  prepare: (c: Context<E>, operation: CompiledOperation) => HandlerContext | Promise<HandlerContext>;
  /** Turns a handler's answer into the response (headers, serialisation, validation). */
  write: (c: Context<E>, operation: CompiledOperation, result: HandlerResult) => Response;
  /**
   * Answers an `OPTIONS` request (a CORS preflight) at a path the spec has. Without it, `OPTIONS`
   * is a method like any other the path does not take (405). Elsewhere it is the app's 404.
   */
  preflight?: (c: Context<E>) => Response | Promise<Response>;
}

/**
 * The operation seam: registers every operation the spec declares on the
 * router, whatever its shape (path templates, query, headers, body, any
 * documented status). A path with no route for the request's method answers
 * `405` with the `Allow` list the spec gives that path (an `OPTIONS` there goes to
 * `preflight` when given); a path the router does not know falls through to the
 * app's `404`.
 */
export function bindOperations<Operations extends { [Id in keyof Operations]: OperationShape }, HandlerContext, E extends Env>(
  app: Hono<E>,
  options: BindOptions<Operations, HandlerContext, E>,
): void {
  const { contract, basePath } = options;
  const bounds = contract.problemBounds;
  for (const operation of contract.operations) {
    // The one dynamic step: the spec names the operation at run time. The map's type above
    // guarantees an entry per operationId and the right input and result for each.
    const handler = options.handlers[operation.operationId as keyof Operations] as unknown as
      | ((input: RequestInput, context: HandlerContext) => Promise<HandlerResult>)
      | undefined;
    if (typeof handler !== 'function') throw new Error(`the spec declares ${operation.operationId}, which has no handler`);
    const checks = options.checks?.(operation) ?? [];
    // One route handler per operation, not a chain of middleware: the checks run in order and the handler after
    // them, each step awaited only when it returned a promise (ADR 0033).
    const respond = async (c: Context<E>): Promise<Response> => {
      const prepared = options.prepare(c, operation);
      const context = prepared instanceof Promise ? await prepared : prepared;
      const read = readInput(c, operation, options.maxBodyBytes, bounds);
      const input = read instanceof Promise ? await read : read;
      let result: HandlerResult;
      try {
        result = await handler(input, context);
      } catch (error) {
        if (error instanceof InputViolation) throw locateViolation(error, input, bounds);
        throw error;
      }
      return options.write(c, operation, result);
    };
    const route = (c: Context<E>): Promise<Response> => {
      const checked = runChecks(c, checks, 0);
      return checked === undefined ? respond(c) : checked.then(() => respond(c));
    };
    for (const path of routePaths(basePath, operation.routePath)) app.on(operation.method, path, route);
  }
  for (const [specPath, methods] of contract.methodsByPath) {
    const allow = methods.join(', ');
    const refuse = (c: Context<E>) => {
      throw new ApiError('urn:problem-type:method-not-allowed', `${c.req.method} is not allowed here; use ${allow}.`, { headers: { Allow: allow } });
    };
    for (const path of routePaths(basePath, toRoutePath(specPath))) {
      // Registered before the 405, which would otherwise take OPTIONS too.
      if (options.preflight) app.options(path, options.preflight);
      app.all(path, refuse);
    }
  }
}

/** Runs `checks` from `from` on: synchronously while each returns at once, the rest after the first that waits. */
function runChecks<E extends Env>(c: Context<E>, checks: readonly Check<E>[], from: number): Promise<void> | undefined {
  for (let index = from; index < checks.length; index++) {
    const waiting = (checks[index] as Check<E>)(c);
    if (waiting instanceof Promise) return waiting.then(() => runChecks(c, checks, index + 1));
  }
  return undefined;
}

/** `{base_url}/` answers at the mount point with and without its trailing slash. */
function routePaths(basePath: string, path: string): string[] {
  if (path !== '/') return [basePath + path];
  return basePath ? [basePath, `${basePath}/`] : ['/'];
}

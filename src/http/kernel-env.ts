/** The types every contract app shares: its Hono environment, the kernel's variables, a guard's shape, the quota the answer reports. */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { Check } from './bind-operations.js';
import type { ProblemType } from './problems.js';
import type { CompiledOperation } from './request-contract.js';

/** The state of one key's quota, as the RateLimit-* headers report it. */
export interface Quota {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window ends. */
  resetSeconds: number;
}

/** What the kernel keeps on every request; an API adds its own (the caller, the session). */
export interface KernelVariables {
  requestId: string;
  /** The client's address (`client-address.ts`), read by every per-client limit and written in the request line. */
  client: string;
  /** The operation the request was routed to; unset on a 404. */
  operation?: CompiledOperation;
  /** The budget the answer's `RateLimit-*` headers report, when the API keeps one. */
  quota?: Quota;
  /** Who the request's credential belongs to, once security has let it through: the user, and the key when it was one (its id, never the key). */
  principal?: Principal;
  /** The problem the request was answered with (`problems.ts`), for the request line and the metrics. */
  problem?: { type: ProblemType; reason: string | undefined };
  /** The W3C trace id of the request's span, when tracing is on. */
  traceId?: string;
  /**
   * `Set-Cookie` values issued while the request was handled (a device cookie at sign-in), sent beside the
   * handler's own headers with a 1xx or 2xx answer only: part of the answer the kernel writes and checks,
   * each its own header line.
   */
  setCookies?: string[];
}

/** The owner of a request's credential, as the request line names it. */
export interface Principal {
  userId: string;
  keyId?: string;
}

/** The Hono environment of a contract app: the Node request as @hono/node-server passes it, and the variables. */
export type KernelEnv<Variables extends object = object> = { Bindings: { incoming?: IncomingMessage }; Variables: KernelVariables & Variables };

/**
 * A check a contract app runs before an operation's handler (a security scheme, a quota, the same-origin rule):
 * it refuses the request by throwing an `ApiError`, and lets it through by returning. The kernel runs them in
 * order, in the operation's one route handler, rather than as a chain of Hono middleware, and awaits only a check
 * that returns a promise (ADR 0033). Today the key and session checks are `async` (the key check awaits the store
 * even when the key cache answers), so they still cost a turn of the microtask queue; the quota check does not.
 */
export type Guard<Variables extends object = object> = Check<KernelEnv<Variables>>;

/** Middleware wrapped around everything the app does for a request (the request's span): Hono's own shape. */
export type Wrapper = MiddlewareHandler<KernelEnv>;

/** The kernel's own view of a request's context (TypeScript cannot see the kernel's variables through an API's generic ones). */
export function kernelOf<Variables extends object>(c: Context<KernelEnv<Variables>>): Context<KernelEnv> {
  return c as unknown as Context<KernelEnv>;
}

/** The types every contract app shares: its Hono environment, the kernel's variables, a guard's shape, the quota the answer reports. */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
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
  /** The operation the request was routed to; unset on a 404. */
  operation?: CompiledOperation;
  /** The budget the answer's `RateLimit-*` headers report, when the API keeps one. */
  quota?: Quota;
}

/** The Hono environment of a contract app: the Node request as @hono/node-server passes it, and the variables. */
export type KernelEnv<Variables extends object = object> = { Bindings: { incoming?: IncomingMessage }; Variables: KernelVariables & Variables };

/** Middleware of a contract app; it refuses a request by throwing an `ApiError`. */
export type Guard<Variables extends object = object> = MiddlewareHandler<KernelEnv<Variables>>;

/** The kernel's own view of a request's context (TypeScript cannot see the kernel's variables through an API's generic ones). */
export function kernelOf<Variables extends object>(c: Context<KernelEnv<Variables>>): Context<KernelEnv> {
  return c as unknown as Context<KernelEnv>;
}

/** What the kernel tells the metrics and the tracing about each request; `src/ops/` implements it, the kernel only calls it. */
import type { Wrapper } from './kernel-env.js';
import type { ProblemType } from './problems.js';

/** The operation label of a request that reached no operation of the contract: the pages, a 404, a 405. */
export const NO_OPERATION = '_other';

/** One answered request, with labels of low cardinality only: never a user, a key, an address or a path. */
export interface AnsweredRequest {
  /** The contract's name in `redocly.yaml`: `main` (the public API) or `account`. */
  api: string;
  /** The operationId, or `NO_OPERATION`. */
  operation: string;
  status: number;
  seconds: number;
  /** The problem the answer carried, and why when the refusal has a named reason (`rate-limit`, `unknown-key`...). */
  problem?: { type: ProblemType; reason: string | undefined } | undefined;
}

/** Told once per answered request (the metrics' histogram and counters). Must be cheap: it runs on every request. */
export interface RequestObserver {
  answered(request: AnsweredRequest): void;
}

/** What a contract app reports to: the metrics when they are on, a span per request when tracing is on. Both optional, both off by default. */
export interface Telemetry {
  observer?: RequestObserver | undefined;
  /** Middleware around everything after the request log: the request's span (it sets `traceId`). */
  tracing?: Wrapper | undefined;
}

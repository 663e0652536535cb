import type { MiddlewareHandler } from 'hono';
import { scrubKeys } from '../keys/api-key.js';
import type { AppLogger } from './app-logger.js';
import { type ClientAddress, socketAddress } from './client-address.js';
import type { KernelVariables } from './kernel-env.js';
import { loggedRequestLines, type RequestLines } from './request-lines.js';
import { clientRequestId, newRequestId } from './response-headers.js';
import { NO_OPERATION, type RequestObserver } from './telemetry.js';

export interface RequestLogOptions {
  /** Longest caller's `X-Request-Id` that is logged (the spec's bound). */
  requestIdMaxLength: number;
  /** Names the listener in each line, when a process has more than one. */
  listener?: string;
  /** Where the lines go (the server's `destinationRequestLines`); by default the logger's `info`. */
  lines?: RequestLines;
  /** Who is calling (`clientAddress(...)`); by default the TCP peer. */
  clientAddress?: ClientAddress;
  /** The API's label for the observer (`main`, `account`). */
  api?: string;
  /** Told of each answered request with its duration (the metrics), when they are on. */
  observer?: RequestObserver | undefined;
}

/**
 * Gives each request the server's own id (`requestId` in the context: sent as `X-Request-Id`, put in every
 * problem) and its client's address (`client`, which every per-client limit reads), and writes one JSON
 * line when it is answered: the id, the caller's own id when it is plain, the trace id when tracing is on,
 * the client's address, the user's and the key's ids once a credential was accepted, the method, the path
 * without its query string (a key pasted into it scrubbed), the status, the problem type of a problem
 * answer and the duration. Never a header, a cookie, a body, a query string or a key: keys, passwords and
 * tokens travel there. The observer (the metrics) is told of the same answer, with the same duration.
 *
 * The line's fields are fixed and safe as built here, so it goes out without the redaction the server
 * configures for free-form lines (`request-lines.ts`).
 */
export function requestLog(logger: AppLogger, options: RequestLogOptions): MiddlewareHandler<{ Variables: KernelVariables }> {
  const enabled = logger.isLevelEnabled?.('info') ?? true;
  const lines = options.lines ?? loggedRequestLines(logger);
  const { listener, observer } = options;
  const api = options.api ?? 'main';
  const clientAddress = options.clientAddress ?? socketAddress;
  return async (c, next) => {
    const started = performance.now();
    c.set('requestId', newRequestId());
    const client = clientAddress(c);
    c.set('client', client);
    await next();
    if (!enabled && !observer) return;
    const elapsedMs = performance.now() - started;
    const status = c.res.status;
    const problem = c.get('problem');
    observer?.answered({ api, operation: c.get('operation')?.operationId ?? NO_OPERATION, status, seconds: elapsedMs / 1000, problem });
    if (!enabled) return;
    const principal = c.get('principal');
    lines.add({
      at: Date.now(),
      requestId: c.get('requestId'),
      clientRequestId: clientRequestId(c.req.header('x-request-id'), options.requestIdMaxLength),
      traceId: c.get('traceId'),
      listener,
      clientAddress: client,
      userId: principal?.userId,
      keyId: principal?.keyId,
      method: c.req.method,
      path: scrubKeys(c.req.path),
      status,
      problem: problem?.type,
      durationMs: Math.round(elapsedMs * 100) / 100,
    });
  };
}

import type { MiddlewareHandler } from 'hono';
import { scrubKeys } from '../keys/api-key.js';
import type { AppLogger } from './app-logger.js';
import { loggedRequestLines, type RequestLines } from './request-lines.js';
import { clientRequestId, newRequestId } from './response-headers.js';

export interface RequestLogOptions {
  /** Longest caller's `X-Request-Id` that is logged (the spec's bound). */
  requestIdMaxLength: number;
  /** Names the listener in each line, when a process has more than one. */
  listener?: string;
  /** Where the lines go (the server's `BatchedRequestLines`); by default the logger's `info`. */
  lines?: RequestLines;
}

/**
 * Gives each request the server's own id (`requestId` in the context: sent as `X-Request-Id`, put in every
 * problem) and writes one JSON line when it is answered: the id, the caller's own id when it is plain, the
 * method, the path without its query string (a key pasted into it scrubbed), the status and the duration.
 * Never a header, a cookie, a body or a query string: keys, passwords and tokens travel there.
 *
 * The line's fields are fixed and safe as built here, so it goes out without the redaction the server
 * configures for free-form lines (`request-lines.ts`).
 */
export function requestLog(logger: AppLogger, options: RequestLogOptions): MiddlewareHandler<{ Variables: { requestId: string } }> {
  const enabled = logger.isLevelEnabled?.('info') ?? true;
  const lines = options.lines ?? loggedRequestLines(logger);
  const listener = options.listener;
  return async (c, next) => {
    const started = performance.now();
    c.set('requestId', newRequestId());
    await next();
    if (!enabled) return;
    lines.add({
      at: Date.now(),
      requestId: c.get('requestId'),
      clientRequestId: clientRequestId(c.req.header('x-request-id'), options.requestIdMaxLength),
      listener,
      method: c.req.method,
      path: scrubKeys(c.req.path),
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
  };
}

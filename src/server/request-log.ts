import type { MiddlewareHandler } from 'hono';
import { scrubKeys } from '../keys/api-key.js';
import { clientRequestId, newRequestId } from './response-headers.js';

/** The part of a pino logger the apps use, so tests can pass a recorder. */
export interface AppLogger {
  info(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** pino's level check; when `info` is off, the request line is not even assembled. */
  isLevelEnabled?(level: string): boolean;
  /** pino's child logger; the request line uses one without redaction (see `requestLog`). */
  child?(bindings: object, options: { redact: string[] }): AppLogger;
  /** Writes buffered lines now; called after the rare lines an operator waits for (the database unavailable). */
  flush?(): void;
}

export interface RequestLogOptions {
  /** Longest caller's `X-Request-Id` that is logged (the spec's bound). */
  requestIdMaxLength: number;
  /** Names the listener in each line, when a process has more than one. */
  listener?: string;
}

/**
 * Gives each request the server's own id (`requestId` in the context: sent as `X-Request-Id`, put in every
 * problem) and writes one JSON line when it is answered: the id, the caller's own id when it is plain, the
 * method, the path without its query string (a key pasted into it scrubbed), the status and the duration.
 * Never a header, a cookie, a body or a query string: keys, passwords and tokens travel there.
 *
 * The line's fields are fixed and built here, so it is written by a child logger without the redaction the
 * server configures for free-form lines: matching a wildcard path against every field cost more than the
 * rest of the line together.
 */
export function requestLog(logger: AppLogger, options: RequestLogOptions): MiddlewareHandler<{ Variables: { requestId: string } }> {
  const enabled = logger.isLevelEnabled?.('info') ?? true;
  const lines = logger.child?.({}, { redact: [] }) ?? logger;
  const listener = options.listener !== undefined ? { listener: options.listener } : undefined;
  return async (c, next) => {
    const started = performance.now();
    c.set('requestId', newRequestId());
    await next();
    if (!enabled) return;
    const clientId = clientRequestId(c.req.header('x-request-id'), options.requestIdMaxLength);
    lines.info({
      requestId: c.get('requestId'),
      ...(clientId !== undefined && { clientRequestId: clientId }),
      ...listener,
      method: c.req.method,
      path: scrubKeys(c.req.path),
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    });
  };
}

let formattedAt = Number.NaN;
let formatted = '';

/**
 * pino's `isoTime` timestamp (`,"time":"2026-11-22T10:00:00.000Z"`), formatted once per millisecond: under load
 * many lines share a millisecond, and formatting a date was a tenth of a line's cost.
 */
export function isoTimeOncePerMillisecond(): string {
  const now = Date.now();
  if (now !== formattedAt) {
    formattedAt = now;
    formatted = `,"time":"${new Date(now).toISOString()}"`;
  }
  return formatted;
}

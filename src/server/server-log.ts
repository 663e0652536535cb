import pino, { type Logger } from 'pino';
import type { ServerConfig } from '../config/env.js';
import { destinationRequestLines, isoTimeOncePerMillisecond, type RequestLines } from '../http/request-lines.js';
import { type BuildInfo, logFields } from '../ops/build-info.js';
import { BatchedLog, type Destination } from './batched-log.js';

/** The longest a log line waits in the buffer: what SIGKILL can lose on a quiet server. */
const LOG_FLUSH_INTERVAL_MS = 1_000;

/** The server's log: pino's lines and the one line per request, into one destination and its one buffer. */
export interface ServerLog {
  logger: Logger;
  /** The one line per request, built by hand (request-lines.ts). */
  requestLines: RequestLines;
  /** Writes every waiting line now (the request lines are in pino's buffer too), then calls `done`. */
  flush(done?: () => void): void;
}

/**
 * Standard output as the process writes it: asynchronous and buffered, which keeps the write off the request path.
 * The buffer is written when it holds 16 KiB (about 50 request lines: each write is a trip to libuv's thread pool,
 * which at 4 KiB cost about 1 µs per request under the bench's load), every second (so a quiet server's last refused
 * requests are on disk too), on SIGHUP and on shutdown.
 */
export function stdoutLog(): Destination {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 16 * 1024, maxWrite: 64 * 1024, periodicFlush: LOG_FLUSH_INTERVAL_MS });
  // pino already stops logging quietly when stdout's reader is gone (EPIPE); any other write error (EIO once a
  // terminal hangs up) must not bring the server down with it. Said once on stderr, which may be gone too.
  let failed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    try {
      process.stderr.write(`log stream failed (${error.code ?? error.message}); the server keeps serving, its log lines may be lost\n`);
    } catch {
      // nowhere left to say it
    }
  });
  return stream;
}

/** The log of one server, into `destination`: every line goes through one batch per turn of the event loop (batched-log.ts). */
export function createServerLog(destination: Destination, options: { level: ServerConfig['logLevel']; build: BuildInfo }): ServerLog {
  const log = new BatchedLog(destination);
  const logger = pino(
    // pino's lines carry the release (the request lines, one per request, leave it out: see docs/observability.md).
    {
      level: options.level,
      base: logFields(options.build),
      timestamp: isoTimeOncePerMillisecond,
      redact: ['authorization', '*.authorization', 'headers.authorization'],
    },
    log,
  );
  return {
    logger,
    requestLines: destinationRequestLines((text) => log.write(text)),
    flush: (done) => (done ? logger.flush(done) : logger.flush()),
  };
}

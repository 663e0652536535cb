import type { AppLogger } from './app-logger.js';

/** The fields of the one line written per answered request, in the order they are written. */
export interface RequestLine {
  /** When the request was answered (milliseconds since the epoch). */
  at: number;
  requestId: string;
  clientRequestId?: string | undefined;
  /** The request's trace id, when tracing is on: the line and the trace find each other. */
  traceId?: string | undefined;
  listener?: string | undefined;
  /** The client's address (`client-address.ts`): the TCP peer, or the client a trusted proxy names. */
  clientAddress: string;
  /** Whose credential the request carried, once it was accepted: the user's id, and the key's id (never the key). */
  userId?: string | undefined;
  keyId?: string | undefined;
  method: string;
  path: string;
  status: number;
  /** The problem type of an answer that is a problem (a refusal, a 404, an error). */
  problem?: string | undefined;
  durationMs: number;
}

/** Where request lines go. */
export interface RequestLines {
  add(line: RequestLine): void;
}

/** pino's number for `info`, the level of every request line. */
const INFO = 30;

/**
 * Request lines given to a logger's `info` one by one: for a logger that is not the server's pino
 * (the tests' recorders), and the default of `createApp` and `createWebApp`.
 */
export function loggedRequestLines(logger: AppLogger): RequestLines {
  const lines = logger.child?.({}, { redact: [] }) ?? logger;
  return {
    // pino leaves out the fields that are undefined (no caller's id, no listener name).
    add({ at: _at, ...fields }) {
      lines.info(fields);
    },
  };
}

/**
 * The server's request lines: the same JSON lines pino writes (`level`, `time`, then the fields), formatted
 * here and written, each as it is answered, into the stream the server's pino writes to, so they share its
 * one buffer (sonic-boom's: written at 16 KiB, every second, on SIGHUP and at shutdown) and its error handling.
 *
 * Why not pino: a request line has fixed fields, each quoted here, and building it by hand took the request
 * log from about 7 to about 3 µs of the server's ~117 µs of CPU per request in `bench:profile` (ADR 0020).
 * pino keeps every other line.
 */
export function destinationRequestLines(write: (text: string) => void): RequestLines {
  return { add: (line) => write(formatRequestLine(line)) };
}

/** One line as pino would write it with the server's options (no `base`, the `isoTime` timestamp), newline included. */
export function formatRequestLine(line: RequestLine): string {
  // Every string is quoted by JSON.stringify: a path, a method or a caller's id never breaks out of its field.
  const client = line.clientRequestId === undefined ? '' : `,"clientRequestId":${JSON.stringify(line.clientRequestId)}`;
  const trace = line.traceId === undefined ? '' : `,"traceId":${JSON.stringify(line.traceId)}`;
  const listener = line.listener === undefined ? '' : `,"listener":${JSON.stringify(line.listener)}`;
  const user = line.userId === undefined ? '' : `,"userId":${JSON.stringify(line.userId)}`;
  const key = line.keyId === undefined ? '' : `,"keyId":${JSON.stringify(line.keyId)}`;
  const problem = line.problem === undefined ? '' : `,"problem":${JSON.stringify(line.problem)}`;
  return `{"level":${INFO}${isoTimeField(line.at)},"requestId":${JSON.stringify(line.requestId)}${client}${trace}${listener},"clientAddress":${JSON.stringify(line.clientAddress)}${user}${key},"method":${JSON.stringify(line.method)},"path":${JSON.stringify(line.path)},"status":${line.status}${problem},"durationMs":${line.durationMs}}\n`;
}

let formattedAt = Number.NaN;
let formatted = '';

/**
 * pino's `isoTime` field (`,"time":"2026-11-22T10:00:00.000Z"`) for `at`, formatted again only when the
 * millisecond changes: under load many lines share a millisecond, and formatting a date was a tenth of a line's cost.
 */
export function isoTimeField(at: number): string {
  if (at !== formattedAt) {
    formattedAt = at;
    formatted = `,"time":"${new Date(at).toISOString()}"`;
  }
  return formatted;
}

/** pino's `timestamp` option for the server's logger: `isoTimeField` of now. */
export function isoTimeOncePerMillisecond(): string {
  return isoTimeField(Date.now());
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { scrubKeys } from '../keys/api-key.js';
import type { AppLogger } from './app-logger.js';
import { type IncomingAddress, incomingAddress } from './client-address.js';
import { type ProblemType, problemBody } from './problems.js';
import type { ProblemBounds } from './request-contract.js';
import { newRequestId, responseHeaders } from './response-headers.js';

/** Why a request was answered before the app saw it; logged as `reason`. */
export type OutsideReason =
  | 'body-on-get-or-head'
  | 'expectation-not-supported'
  | 'missing-host'
  | 'malformed-target-or-host'
  | 'adapter-failure'
  | 'connect-not-served'
  | 'connection-over-cap'
  // Node's parser and timeouts (`clientError`): its error codes.
  | (string & {});

/** One problem answered by the listener rather than the app, with everything it is sent with. */
export interface OutsideProblem {
  requestId: string;
  status: number;
  title: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The problems a listener answers itself, before or around the app: Node's parser and timeouts,
 * the adapter's refusal of a malformed path or Host, a body on GET or HEAD, an unsupported
 * `Expect`. Each is the contract's problem+json with the app's own headers (the security set,
 * `X-Request-Id`, its id in the body too) and one log line in the shape of the app's request
 * line, so an operator finds it as any other refused request.
 */
export class OutsideAnswers {
  readonly #logger: AppLogger;
  readonly #bounds: ProblemBounds;
  readonly #logRequests: boolean;
  readonly #clientAddress: IncomingAddress;

  /** `clientAddress` is the app's resolver (`TRUSTED_PROXIES`), so these lines name the client as the app's do. */
  constructor(logger: AppLogger, bounds: ProblemBounds, clientAddress: IncomingAddress = incomingAddress()) {
    this.#logger = logger;
    this.#bounds = bounds;
    this.#logRequests = logger.isLevelEnabled?.('info') ?? true;
    this.#clientAddress = clientAddress;
  }

  /** What a line says of a request the listener has an object for. */
  request(incoming: IncomingMessage, method = incoming.method ?? ''): { clientAddress: string; method: string; path: string } {
    return { clientAddress: this.#clientAddress(incoming), method, path: pathOf(incoming.url ?? '') };
  }

  /** The problem, its headers and its body; `closes` adds `Connection: close`. */
  problem(type: ProblemType, detail: string, options: { instance?: string; closes?: boolean } = {}): OutsideProblem {
    const requestId = newRequestId();
    const body = problemBody(type, detail, { requestId, instance: options.instance }, this.#bounds);
    const { status, title } = body;
    const headers = responseHeaders('application/problem+json', requestId, undefined, options.closes ? { connection: 'close' } : undefined);
    return { requestId, status, title, headers, body: JSON.stringify(body) };
  }

  /** Writes the problem on a request's own response (Node closes the connection after it when `closes`). */
  answer(incoming: IncomingMessage, outgoing: ServerResponse, problem: OutsideProblem, reason: OutsideReason, started = performance.now()): void {
    outgoing.writeHead(problem.status, { ...problem.headers, 'content-length': String(Buffer.byteLength(problem.body)) });
    outgoing.end(problem.body);
    this.log(problem, reason, this.request(incoming), started);
  }

  /** The problem as raw HTTP/1.1 bytes, for a socket that has no response object (Node's parser refused the request). */
  raw(problem: OutsideProblem): string {
    const head = [`HTTP/1.1 ${problem.status} ${problem.title}`];
    for (const [name, value] of Object.entries({ ...problem.headers, connection: 'close' })) head.push(`${name}: ${value}`);
    head.push(`content-length: ${Buffer.byteLength(problem.body)}`, '', '');
    return head.join('\r\n') + problem.body;
  }

  /** One line like the app's request line: the server's id, method and path when known, the status, and why. */
  log(
    problem: Pick<OutsideProblem, 'requestId' | 'status'>,
    reason: OutsideReason,
    request?: { clientAddress?: string | undefined; method?: string; path?: string },
    started?: number,
  ): void {
    if (!this.#logRequests) return;
    this.#logger.info({
      requestId: problem.requestId,
      ...request,
      status: problem.status,
      ...(started !== undefined && { durationMs: Math.round((performance.now() - started) * 100) / 100 }),
      reason,
    });
  }
}

/** The path of a request target as the app would log it: no query string, and a key pasted into it scrubbed. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  return scrubKeys(path.length > 2048 ? `${path.slice(0, 2047)}…` : path);
}

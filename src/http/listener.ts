import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { AppLogger } from './app-logger.js';
import type { IncomingAddress } from './client-address.js';
import { OutsideAnswers, pathOf } from './outside-answers.js';
import type { ProblemType } from './problems.js';
import type { ProblemBounds } from './request-contract.js';

/** The app the listener serves: Hono's `app.fetch`, given Node's request and response as `c.env` (`incoming`, `outgoing`). */
export type FetchHandler = Parameters<typeof getRequestListener>[0];

export interface ListenerLogger extends AppLogger {
  warn(fields: object, message?: string): void;
}

export interface ListenerOptions {
  fetch: FetchHandler;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Names the listener in its log lines (`api`, `web`). */
  name: string;
  timeouts: {
    /** Longest a client may take to send its request headers (408 after). */
    headersTimeoutMs: number;
    /** Longest a client may take to send its whole request (408 after); also the longest a connection may sit without any traffic. */
    requestTimeoutMs: number;
    /** How long an idle keep-alive connection stays open. */
    keepAliveTimeoutMs: number;
  };
  connections: {
    /** Open connections at most; more are closed as they arrive, without an answer. */
    max: number;
    /** Open connections from one client address at most; more from it are closed as they arrive. */
    perAddress: number;
    /** Peers held to `max` alone: the trusted proxies (`TRUSTED_PROXIES`), whose connections carry many clients. */
    exempt?: ((address: string) => boolean) | undefined;
  };
  logger: ListenerLogger;
  /** The spec's bounds for a problem's fields. */
  problemBounds: ProblemBounds;
  /** Who is calling, for the lines of the answers outside the app (the app's resolver); by default the TCP peer. */
  clientAddress?: IncomingAddress | undefined;
}

/** What went wrong, for the problem Node's parser or timeouts leave to `clientError`. */
const CLIENT_ERRORS: Record<string, [ProblemType, string]> = {
  HPE_HEADER_OVERFLOW: ['urn:problem-type:header-fields-too-large', 'The request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['urn:problem-type:request-timeout', 'The request was not received in time.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['urn:problem-type:content-too-large', 'The chunk extensions of the request body are too large.'],
};
const NOT_HTTP: [ProblemType, string] = ['urn:problem-type:malformed-request', 'The request is not valid HTTP.'];
/** The client went away: there is nobody to answer. */
const GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** The last request a connection carried and its answer, to know whether anything may still be written on it. */
interface Exchange {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/**
 * Whether the connection's request has an answer on its way, or was answered before its body had fully arrived:
 * then anything written now would be read as a second answer. Node's own check (the answer it is writing,
 * `_httpMessage`) covers an earlier answer of pipelined requests still being written.
 */
function answered(socket: Socket, last: Exchange | undefined): boolean {
  const writing = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (writing?.headersSent) return true;
  if (!last?.outgoing.headersSent) return false;
  // A request complete and answered in full: the connection has moved on to a next request, which has no answer yet.
  return !(last.incoming.complete && last.outgoing.writableFinished);
}

/**
 * A Node HTTP listener for one app, hardened as the app cannot be from inside: a cap on
 * connections (in all and per client address), tight timeouts, and every answer the app never
 * sees written as the app writes its own (problem+json, security headers, request id, one log
 * line): Node's parser errors and timeouts (400, 408, 431), the adapter's refusal of a malformed
 * path or Host (400), a request without Host, a body on GET or HEAD (400, connection closed), an
 * `Expect` other than `100-continue` (417). Nothing is ever written on a connection whose request
 * already has an answer under way or sent. `100 Continue` is sent only when the app starts
 * reading the body, so a request refused on its headers never sends it.
 */
export function createListener(options: ListenerOptions): Server {
  const { timeouts, logger } = options;
  const answers = new OutsideAnswers(logger, options.problemBounds, options.clientAddress);

  const server = createServer({
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Node checks the two timeouts above only every 30 s by default, so a 1 s headers timeout would hold a slow client for up to 30 s.
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
    // Node's own 400 for a missing Host is empty and unlogged; the listener answers it below.
    requireHostHeader: false,
  });
  // A connection with no traffic at all for this long is closed (a client that stops reading its answer).
  server.setTimeout(timeouts.requestTimeoutMs);
  limitConnections(server, options);

  const exchanges = new WeakMap<Socket, Exchange>();
  /** The request the adapter is handling right now: it calls `errorHandler` synchronously for a malformed path or Host. */
  let current: { incoming: IncomingMessage; started: number } | undefined;
  // One adapter for all requests: one per request, to hand each its own error handler, cost a closure per request.
  // Without the adapter's own clean-up of a body left unread: it set two timers and a drain on every request whose
  // body the app read straight from Node's buffer. Node discards a body nobody started reading once the answer is
  // out, and the one body the app stops reading half-way (over the size limit) is discarded by `readBody` itself.
  const adapter = getRequestListener(options.fetch, {
    hostname: options.host,
    errorHandler: (error) => adapterError(error),
    autoCleanupIncoming: false,
  });

  function handle(incoming: IncomingMessage, outgoing: ServerResponse): void {
    const started = performance.now();
    exchanges.set(incoming.socket, { incoming, outgoing });
    const method = incoming.method ?? '';
    if ((method === 'GET' || method === 'HEAD') && carriesBody(incoming)) {
      const problem = answers.problem(
        'urn:problem-type:malformed-request',
        `A ${method} request carries no body; send the options in the query string. The connection is closed.`,
        { instance: pathOf(incoming.url ?? ''), closes: true },
      );
      answers.answer(incoming, outgoing, problem, 'body-on-get-or-head', started);
      return;
    }
    if (incoming.httpVersion === '1.1' && incoming.headers.host === undefined) {
      const problem = answers.problem('urn:problem-type:malformed-request', 'An HTTP/1.1 request must carry a Host header.', { closes: true });
      answers.answer(incoming, outgoing, problem, 'missing-host', started);
      return;
    }
    current = { incoming, started };
    try {
      void adapter(incoming, outgoing);
    } finally {
      current = undefined;
    }
  }

  /**
   * The adapter refused the request (a malformed path or Host: called while `handle` runs) or the app failed
   * outside its own error handler (called later: which request it was is then unknown here).
   */
  function adapterError(error: unknown): Response {
    const request = current && answers.request(current.incoming);
    const started = current?.started;
    if (error instanceof Error && error.name === 'RequestError') {
      const problem = answers.problem('urn:problem-type:malformed-request', "The request's path or Host header is malformed.");
      answers.log(problem, 'malformed-target-or-host', request, started);
      return new Response(problem.body, { status: problem.status, headers: problem.headers });
    }
    const problem = answers.problem('urn:problem-type:internal-error', 'The server failed to answer this request. It has been logged under the request id.');
    logger.error({ requestId: problem.requestId, ...request, err: error }, 'the app failed outside its error handler');
    answers.log(problem, 'adapter-failure', request, started);
    return new Response(problem.body, { status: problem.status, headers: problem.headers });
  }

  server.on('request', handle);
  // Tell the client to send its body only once the app reads it: a request refused on its headers
  // (401, 413, 415, ...) is answered at once, without it, and Node then closes the connection.
  server.on('checkContinue', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    incoming.once('resume', () => {
      if (!outgoing.headersSent && !outgoing.writableEnded) outgoing.writeContinue();
    });
    handle(incoming, outgoing);
  });
  server.on('checkExpectation', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const started = performance.now();
    exchanges.set(incoming.socket, { incoming, outgoing });
    const problem = answers.problem('urn:problem-type:expectation-failed', 'This server meets no expectation but 100-continue. The connection is closed.', {
      instance: pathOf(incoming.url ?? ''),
      closes: true,
    });
    answers.answer(incoming, outgoing, problem, 'expectation-not-supported', started);
  });
  // Without this, Node drops a CONNECT without a word.
  server.on('connect', (incoming: IncomingMessage, socket: Socket) => {
    const problem = answers.problem('urn:problem-type:malformed-request', 'This server is no proxy: CONNECT is not served.', { closes: true });
    socket.end(answers.raw(problem));
    answers.log(problem, 'connect-not-served', answers.request(incoming, 'CONNECT'));
  });
  // Requests Node refuses before any request object exists (broken HTTP, oversized headers, too slow).
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (GONE.has(error.code ?? '') || !socket.writable || answered(socket, exchanges.get(socket))) {
      // A second answer on a connection whose request was answered would be read as the answer to the next request.
      socket.destroy();
      return;
    }
    const [type, detail] = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP;
    const problem = answers.problem(type, detail, { closes: true });
    socket.end(answers.raw(problem));
    // No request to read a forwarded address from: the TCP peer.
    answers.log(problem, error.code ?? 'HPE_UNKNOWN', { clientAddress: socket.remoteAddress });
  });
  return server;
}

/** Starts the listener; resolves with the server and its root URL once it listens. */
export function listen(options: ListenerOptions): Promise<{ server: Server; url: string }> {
  const server = createListener(options);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error(`unexpected listening address ${String(address)}`));
      resolve({ server, url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` });
    });
  });
}

/** A body announced by its framing: any Transfer-Encoding, or a Content-Length above zero. */
function carriesBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * From now on every answer says `Connection: close` and its connection ends after it: while an instance drains,
 * a balancer or client holding a kept-alive connection opens its next one elsewhere, instead of sending a request
 * on a connection the instance is about to close (a 502 at nginx). Costs nothing before the drain: the listener is
 * added then.
 */
export function closeConnectionsAfterAnswers(server: Server): void {
  server.prependListener('request', (_incoming: IncomingMessage, outgoing: ServerResponse) => {
    outgoing.shouldKeepAlive = false;
  });
}

/**
 * Caps open connections in all (Node's `maxConnections`, which closes a connection over it as it
 * is accepted) and per client address (closed as soon as Node hands it over), but for a trusted proxy's. A refused client
 * gets no answer: reading its request first would let a slow one hold the connection anyway.
 * Refusals are logged at most once a second, with how many there were.
 */
export function limitConnections(server: Server, options: Pick<ListenerOptions, 'connections' | 'logger' | 'name'>): void {
  const { max, perAddress, exempt } = options.connections;
  server.maxConnections = max;
  const open = new Map<string, number>();
  const refused = { total: 0, perAddress: 0 };
  let reporting = false;
  const report = () => {
    if (reporting) return;
    reporting = true;
    setTimeout(() => {
      reporting = false;
      options.logger.warn(
        { listener: options.name, refusedConnections: { ...refused }, maxConnections: max, maxConnectionsPerAddress: perAddress },
        'connections refused over the cap in the last second',
      );
      refused.total = 0;
      refused.perAddress = 0;
    }, 1_000).unref();
  };
  server.on('drop', () => {
    refused.total++;
    report();
  });
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (exempt?.(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > perAddress) {
      socket.destroy();
      refused.perAddress++;
      report();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

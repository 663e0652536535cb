/**
 * Answers the app never writes, over a real socket to the server's real listeners (held in this process): Node's parser and timeouts
 * (400, 408, 431), the adapter's refusal of a malformed path or Host, a request without Host, a
 * body on GET or HEAD, `Expect`, and the CORS preflight. Each must be the contract's problem (or
 * the preflight's 204) with the security headers and a request id, logged under that id, the only
 * answer on its connection, and the connection closed where the framing can no longer be trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../../src/http/response-headers.js';
import { makeKey } from '../../tools/process/make-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { expectHonoursContract } from '../helpers/contract.js';
import { type InProcessServer, startInProcessServer } from '../helpers/in-process-server.js';
import { exchange, httpRequest, type RawResponse, type Step } from './helpers/raw-http.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 1_500;
/** Long enough for a late 408 (the request timeout, checked once a second) to show up after a first answer. */
const OUTLAST_TIMEOUTS_MS = REQUEST_TIMEOUT_MS + 1_000 + 1_500;
const ORIGIN = 'https://app.example';

const database = scratchDatabase('outside-answers-');
let server: InProcessServer;
let webPort: number;
let key: string;
/** Every answer seen, by request id, for the log check at the end. */
const answered = new Map<string, number>();

beforeAll(async () => {
  key = (await makeKey(database.path, 'ann')).key;
  server = await startInProcessServer({
    databasePath: database.path,
    env: { HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), CORS_ORIGINS: ORIGIN, LOG_LEVEL: 'info' },
  });
  webPort = Number(/^Web application on http:\/\/[^:]+:(\d+)/m.exec(server.stderr())?.[1]);
});
afterAll(async () => {
  await server?.stop();
  database.remove();
});

const auth = (): Array<[string, string]> => [['Authorization', `Bearer ${key}`]];
const json: Array<[string, string]> = [['Content-Type', 'application/json']];

interface Row {
  given: string;
  steps: () => Step[];
  want: {
    status: number;
    /** The problem type; none for a 2xx. */
    type?: string;
    /** The server closes the connection after its answer. */
    closes?: boolean;
    /** `100 Continue` came before the answer (true), or never (false). */
    continued?: boolean;
    headers?: Record<string, string | undefined>;
  };
  listener?: 'api' | 'web';
  /** HEAD: the answer has no body. */
  bodiless?: boolean;
  waitMs?: number;
}

const rows: Row[] = [
  {
    given: 'a GET whose announced body never finishes',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ['Content-Length', '100']], 'ab')],
    want: { status: 400, type: 'malformed-request', closes: true },
    waitMs: OUTLAST_TIMEOUTS_MS,
  },
  {
    given: 'a GET with a whole body',
    steps: () => [httpRequest('GET', '/shared?limit=2', [...auth(), ...json, ['Content-Length', '2']], '{}')],
    want: { status: 400, type: 'malformed-request', closes: true },
  },
  {
    given: 'a HEAD with a body',
    steps: () => [httpRequest('HEAD', '/shared', [...auth(), ['Content-Length', '5']], 'hello')],
    want: { status: 400, closes: true },
    bodiless: true,
  },
  {
    given: 'a GET with an empty chunked body',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ['Transfer-Encoding', 'chunked']], '0\r\n\r\n')],
    want: { status: 400, type: 'malformed-request', closes: true },
  },
  {
    given: 'a GET with Content-Length: 0 (no body, as the source example sends it)',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ...json, ['Content-Length', '0']])],
    want: { status: 200 },
  },
  {
    given: 'Expect: 100-continue on an accepted request',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', '2'], ['Expect', '100-continue']]), { pauseMs: 300 }, '{}'],
    want: { status: 200, continued: true },
  },
  {
    given: 'Expect: 100-continue without a key',
    steps: () => [httpRequest('POST', '/', [...json, ['Content-Length', '2'], ['Expect', '100-continue']])],
    want: { status: 401, type: 'unauthorized', continued: false, closes: true },
  },
  {
    given: 'Expect: 100-continue with a body declared over the limit',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', '100000'], ['Expect', '100-continue']])],
    want: { status: 413, type: 'content-too-large', continued: false, closes: true },
  },
  {
    given: 'an Expect other than 100-continue',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', '2'], ['Expect', 'the-unexpected']], '{}')],
    want: { status: 417, type: 'expectation-failed', closes: true },
  },
  {
    given: 'a malformed Host',
    steps: () => ['GET /shared HTTP/1.1\r\nHost: a b\r\n\r\n'],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'a backslash in the path',
    steps: () => ['GET /sha\\red HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'an HTTP/1.1 request without Host',
    steps: () => ['GET /shared HTTP/1.1\r\n\r\n'],
    want: { status: 400, type: 'malformed-request', closes: true },
  },
  {
    given: 'headers over 16 KiB (Node answers it)',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ['X-Padding', 'x'.repeat(20 * 1024)]])],
    want: { status: 431, type: 'header-fields-too-large', closes: true },
  },
  {
    given: 'bytes that are not HTTP (Node answers it)',
    steps: () => [new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]), '\r\n\r\n'],
    want: { status: 400, type: 'malformed-request', closes: true },
  },
  {
    given: 'headers sent too slowly (Node answers it)',
    steps: () => ['GET /shared HTTP/1.1\r\nHost: 127.0.0.1\r\n', { pauseMs: 800 }, 'X-Slow: 1\r\n', { pauseMs: 800 }, 'X-Slow: 2\r\n'],
    want: { status: 408, type: 'request-timeout', closes: true },
    waitMs: OUTLAST_TIMEOUTS_MS,
  },
  {
    given: 'a POST refused on its headers while its announced body never comes',
    steps: () => [httpRequest('POST', '/', [...json, ['Content-Length', '100']])],
    want: { status: 401, type: 'unauthorized', closes: true },
    waitMs: OUTLAST_TIMEOUTS_MS,
  },
  {
    given: 'a CONNECT (Node drops it without a word unless told)',
    steps: () => ['CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n'],
    want: { status: 400, type: 'malformed-request', closes: true },
  },
  {
    given: 'a CORS preflight at an unknown path',
    steps: () => [
      httpRequest('OPTIONS', '/no/such/path', [
        ['Origin', ORIGIN],
        ['Access-Control-Request-Method', 'POST'],
      ]),
    ],
    want: { status: 404, type: 'not-found' },
  },
  {
    given: "a CORS preflight at an operation's path",
    steps: () => [
      httpRequest('OPTIONS', '/shared', [
        ['Origin', ORIGIN],
        ['Access-Control-Request-Method', 'POST'],
      ]),
    ],
    want: { status: 204, headers: { 'access-control-allow-origin': ORIGIN } },
  },
  {
    given: 'a CORS preflight from an origin not allowed',
    steps: () => [
      httpRequest('OPTIONS', '/shared', [
        ['Origin', 'https://elsewhere.example'],
        ['Access-Control-Request-Method', 'POST'],
      ]),
    ],
    want: { status: 204, headers: { 'access-control-allow-origin': undefined } },
  },
  {
    given: 'a GET with a body to the web application',
    steps: () => [httpRequest('GET', '/api/session', [['Content-Length', '2']], '{}')],
    want: { status: 400, type: 'malformed-request', closes: true },
    listener: 'web',
  },
  {
    given: 'an Expect other than 100-continue to the web application',
    steps: () => [httpRequest('POST', '/api/session', [...json, ['Content-Length', '2'], ['Expect', 'x']], '{}')],
    want: { status: 417, type: 'expectation-failed', closes: true },
    listener: 'web',
  },
];

function expectAnswer(answer: RawResponse, want: Row['want']): void {
  expect(answer.status).toBe(want.status);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(answer.headers[name], name).toBe(value);
  const requestId = answer.headers['x-request-id'];
  expect(requestId, 'X-Request-Id').toMatch(/^[0-9a-f-]{36}$/);
  answered.set(requestId!, answer.status);
  for (const [name, value] of Object.entries(want.headers ?? {})) expect(answer.headers[name], name).toBe(value);
  if (!want.type) return;
  expectHonoursContract(undefined, { status: answer.status, headers: new Headers(answer.headers), body: answer.body });
  expect(JSON.parse(answer.body)).toMatchObject({ type: `urn:problem-type:${want.type}`, status: want.status, requestId });
}

describe('answers written outside the app', () => {
  it.each(rows)('$given: $want.status', async (row) => {
    const port = row.listener === 'web' ? webPort : server.port;
    const waitMs = row.waitMs ?? 2_000;
    // A connection kept open is read until its answer; one the server should close, until it does (or waitMs).
    const untilResponses = row.want.closes ? undefined : row.want.continued ? 2 : 1;
    const result = await exchange(port, row.steps(), { waitMs, bodiless: row.bodiless ?? false, ...(untilResponses && { untilResponses }) });
    const final = result.responses.filter((response) => response.status >= 200);
    // One answer, never a second one (a late 408) on the same connection.
    expect(
      final.map((response) => response.status),
      result.raw.slice(0, 600),
    ).toEqual([row.want.status]);
    expectAnswer(final[0]!, row.want);
    if (row.want.continued !== undefined) expect(result.responses.some((response) => response.status === 100)).toBe(row.want.continued);
    if (row.want.closes) {
      expect(result.closedByServer, 'the server closed the connection').toBe(true);
      expect(result.elapsedMs).toBeLessThan(waitMs);
    }
    if (row.want.status !== 200) expect(result.raw).not.toContain(key);
  });

  it('logs every one of them under the request id it sent back, with its status', async () => {
    // Stopping flushes the log, as SIGTERM does.
    await server.stop();
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { requestId?: string; status?: number; level: number });
    const logged = new Map(lines.filter((line) => line.requestId !== undefined).map((line) => [line.requestId!, line.status]));
    expect(answered.size).toBe(rows.length);
    for (const [requestId, status] of answered) expect(logged.get(requestId), `log line for ${requestId} (${status})`).toBe(status);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(server.stdout() + server.stderr()).not.toContain(key);
  });
});

/**
 * The rows of the bad-input matrix that only a real socket can send, against a
 * real server process: repeated header lines, invalid bytes and chunked bodies
 * on the wire, oversized headers (Node's parser answers those before the app
 * runs), and framing that request smuggling relies on. After every row the
 * same process must still answer a valid request.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isRunning } from '../../tools/process/process-group.js';
import { stderrBeyondGreeting } from '../../tools/process/server.js';
import { expectHonoursContract, operationIdFor } from '../helpers/contract.js';
import { sharedService } from '../helpers/services.js';
import { SORT } from '../helpers/spec-fixture.js';
import { chunkedBody, exchange, httpRequest, type RawResponse, type Step } from './helpers/raw-http.js';

const MAX = 8192;
// Started once for the run by test/global-setup.ts; other files send it requests meanwhile.
const server = await sharedService('server');
const key = server.demoKey;

const json: Array<[string, string]> = [['Content-Type', 'application/json']];
const auth = (): Array<[string, string]> => [['Authorization', `Bearer ${key}`]];

interface WireRow {
  given: string;
  steps: () => Step[];
  want: { status: number; type: string; headers?: Record<string, string | RegExp> };
  /** The operation the request was for, so the answer is checked against its documented responses. */
  operation?: { method: string; path: string };
  waitMs?: number;
}

const rows: WireRow[] = [
  {
    given: 'two Authorization header lines, both with the valid key',
    steps: () => [httpRequest('POST', '/', [...auth(), ...auth(), ...json, ['Content-Length', '2']], '{}')],
    want: { status: 401, type: 'unauthorized', headers: { 'www-authenticate': /error="invalid_token"/ } },
    operation: { method: 'POST', path: '/' },
  },
  {
    given: 'two Authorization header lines, the valid key second',
    steps: () => [httpRequest('GET', '/shared', [['Authorization', 'Bearer nope'], ...auth()])],
    want: { status: 401, type: 'unauthorized' },
    operation: { method: 'GET', path: '/shared' },
  },
  {
    given: 'invalid UTF-8 bytes in the body',
    steps: () => {
      const body = new Uint8Array([...Buffer.from('{"sort":"'), 0xff, 0xfe, ...Buffer.from('"}')]);
      return [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', String(body.byteLength)]], body)];
    },
    want: { status: 400, type: 'malformed-request' },
    operation: { method: 'POST', path: '/' },
  },
  {
    given: 'a chunked body within the limit',
    steps: () => [
      httpRequest('POST', '/shared', [...auth(), ...json, ['Transfer-Encoding', 'chunked']], chunkedBody(`{"sort":"${SORT.default}"${' '.repeat(3000)}}`, 100)),
    ],
    want: { status: 200, type: '' },
    operation: { method: 'POST', path: '/shared' },
  },
  {
    given: `a chunked body over ${MAX} bytes`,
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Transfer-Encoding', 'chunked']], chunkedBody(`{"sort":"${'a'.repeat(3 * MAX)}"}`))],
    want: { status: 413, type: 'content-too-large' },
    operation: { method: 'POST', path: '/' },
  },
  {
    given: 'a 10,000-deep array, chunked',
    steps: () => [
      httpRequest('POST', '/', [...auth(), ...json, ['Transfer-Encoding', 'chunked']], chunkedBody(`{"sort":${'['.repeat(10_000)}${']'.repeat(10_000)}}`)),
    ],
    want: { status: 413, type: 'content-too-large' },
    operation: { method: 'POST', path: '/' },
  },
  {
    given: 'Content-Length of 1 GB, and no body sent: answered without waiting for it',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', String(1e9)]])],
    want: { status: 413, type: 'content-too-large' },
    operation: { method: 'POST', path: '/' },
  },
  {
    given: 'one 20 KiB header',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ['X-Padding', 'x'.repeat(20 * 1024)]])],
    want: { status: 431, type: 'header-fields-too-large' },
  },
  {
    given: '600 small headers adding up to over 16 KiB',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ...Array.from({ length: 600 }, (_, index): [string, string] => [`X-H${index}`, 'y'.repeat(24)])])],
    want: { status: 431, type: 'header-fields-too-large' },
  },
  {
    given: 'a 20 KiB Authorization header',
    steps: () => [httpRequest('GET', '/shared', [['Authorization', `Bearer ${'k'.repeat(20 * 1024)}`]])],
    want: { status: 431, type: 'header-fields-too-large' },
  },
  {
    given: 'a 20 KiB request target',
    steps: () => [httpRequest('GET', `/shared?cursor=${'c'.repeat(20 * 1024)}`, auth())],
    want: { status: 431, type: 'header-fields-too-large' },
  },
  {
    given: 'both Content-Length and Transfer-Encoding (a smuggling attempt)',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', '4'], ['Transfer-Encoding', 'chunked']], chunkedBody('{}'))],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'two different Content-Length headers',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', '2'], ['Content-Length', '3']], '{} ')],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'a Content-Length that is not a number',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', 'abc']], '{}')],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'a broken chunk size',
    steps: () => [httpRequest('POST', '/', [...auth(), ...json, ['Transfer-Encoding', 'chunked']], 'zz\r\n{}\r\n0\r\n\r\n')],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'a header name with a space',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ['Bad Header', 'x']])],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'a header value with a NUL byte',
    steps: () => [httpRequest('GET', '/shared', [...auth(), ['X-Nul', 'a\u0000b']])],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'bytes that are not HTTP',
    steps: () => [new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]), '\r\n\r\n'],
    want: { status: 400, type: 'malformed-request' },
  },
  {
    given: 'an unknown method',
    steps: () => [httpRequest('BREW', '/', auth())],
    want: { status: 400, type: 'malformed-request' },
  },
];

function expectProblem(response: RawResponse | undefined, want: WireRow['want'], operation?: WireRow['operation']): void {
  expect(response, 'an HTTP answer').toBeDefined();
  const { status, headers, body } = response!;
  expect(status).toBe(want.status);
  expectHonoursContract(operation ? operationIdFor(operation.method, operation.path) : undefined, { status, headers: new Headers(headers), body });
  if (want.type) expect(JSON.parse(body)).toMatchObject({ type: `urn:problem-type:${want.type}`, status: want.status });
  for (const [name, value] of Object.entries(want.headers ?? {})) {
    if (typeof value === 'string') expect(headers[name]).toBe(value);
    else expect(headers[name]).toMatch(value);
  }
  expect(headers['x-powered-by']).toBeUndefined();
}

async function stillServes(): Promise<void> {
  const response = await fetch(`${server.url}/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

describe('the bad-input matrix over the wire', () => {
  it.each(rows)('$given: $want.status', async (row) => {
    const result = await exchange(server.port, row.steps(), { untilResponses: 1, waitMs: row.waitMs ?? 5_000 });
    expectProblem(result.responses[0], row.want, row.operation);
    if (row.want.status !== 200) expect(result.raw).not.toContain(key);
    await stillServes();
  });

  it('keeps a connection usable after a 413 with a declared length, or closes it cleanly', async () => {
    const big = `{"sort":"${'a'.repeat(2 * MAX)}"}`;
    const result = await exchange(
      server.port,
      [
        httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', String(Buffer.byteLength(big))]], big),
        httpRequest('POST', '/', [...auth(), ...json, ['Content-Length', '2']], '{}'),
      ],
      { untilResponses: 2, waitMs: 2_000 },
    );
    expectProblem(result.responses[0], { status: 413, type: 'content-too-large' }, { method: 'POST', path: '/' });
    // Either the rest of the body was drained and the next request answered, or the server said it would close.
    if (result.responses.length > 1) expect(result.responses[1]?.status).toBe(200);
    else expect(result.responses[0]?.headers['connection']).toBe('close');
    await stillServes();
  });

  it('sends secure headers, no X-Powered-By and no CORS headers from the real process', async () => {
    const response = await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${key}`, Origin: 'https://app.example' } });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('gets no answer to a body the client abandons halfway (it closes the connection), and stays up', async () => {
    const result = await exchange(
      server.port,
      [
        `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"sort":`,
        { pauseMs: 200 },
      ],
      { waitMs: 100 },
    );
    expect(result.responses).toEqual([]);
    await stillServes();
  });

  it('is still the same process, with nothing on stderr but its greeting, after all of it', async () => {
    await stillServes();
    expect(isRunning(server.pid)).toBe(true);
    expect(stderrBeyondGreeting(readFileSync(server.stderrFile, 'utf8'))).toBe('');
  });
});

/**
 * Slow clients against a real process with short HEADERS_TIMEOUT_MS and
 * REQUEST_TIMEOUT_MS: a client that dribbles its headers or its body is cut off
 * near the configured time, while the server keeps answering everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey } from '../../tools/process/make-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { startServer, type ServerProcess } from '../../tools/process/server.js';
import { exchange, httpRequest, parseResponses, type RawExchange, type Step } from './helpers/raw-http.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
/** The server checks its timeouts once a second, so a cut comes up to a second after the deadline; the rest is slack for a busy machine. */
const CUT_WITHIN_MS = 1_000 + 2_000;

const database = scratchDatabase('slow-');
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  key = (await makeKey(database.path, 'slow')).key;
  server = await startServer({
    databasePath: database.path,
    env: { HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
  });
});
afterAll(async () => {
  await server?.stop();
  database.remove();
});

/** Headers one line at a time, `pauseMs` apart, for `lines` lines: never finishing in time. */
function slowHeaders(lines: number, pauseMs: number): Step[] {
  const steps: Step[] = ['GET /shared HTTP/1.1\r\nHost: 127.0.0.1\r\n'];
  for (let index = 0; index < lines; index++) steps.push({ pauseMs }, `X-Slow-${index}: ${'z'.repeat(10)}\r\n`);
  return steps;
}

/** A request whose body arrives a byte every `pauseMs`. */
function slowBody(bytes: number, pauseMs: number): Step[] {
  const body = `{${' '.repeat(bytes - 2)}}`;
  const steps: Step[] = [
    httpRequest('POST', '/', [
      ['Authorization', `Bearer ${key}`],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(body.length)],
    ]),
  ];
  for (const character of body) steps.push({ pauseMs }, character);
  return steps;
}

/** What the server said when it cut the connection: nothing, or a problem+json and `Connection: close`. */
function expectCutCleanly(result: RawExchange, deadlineMs: number, expectedStatus?: number): void {
  expect(result.closedByServer, 'the server closed the connection').toBe(true);
  expect(result.elapsedMs).toBeGreaterThanOrEqual(deadlineMs - 50);
  expect(result.elapsedMs).toBeLessThan(deadlineMs + CUT_WITHIN_MS);
  const [answer] = parseResponses(Buffer.from(result.raw, 'latin1'));
  if (answer) {
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers['connection']).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({ status: answer.status });
    if (expectedStatus !== undefined) expect(answer.status).toBe(expectedStatus);
  }
}

async function timedRequest(): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

describe('slow clients', () => {
  it(`cuts a client that sends its headers too slowly (headers timeout ${HEADERS_TIMEOUT_MS} ms)`, async () => {
    // 40 header lines, 250 ms apart: 10 s if the server let it.
    const result = await exchange(server.port, slowHeaders(40, 250), { waitMs: 10_000 });
    expectCutCleanly(result, HEADERS_TIMEOUT_MS, 408);
    expect(result.raw).toContain('urn:problem-type:request-timeout');
  });

  it(`cuts a client that sends its body too slowly (request timeout ${REQUEST_TIMEOUT_MS} ms)`, async () => {
    const result = await exchange(server.port, slowBody(40, 250), { waitMs: 10_000 });
    expectCutCleanly(result, REQUEST_TIMEOUT_MS);
  });

  it('cuts a client that announces a body and never sends it', async () => {
    const result = await exchange(
      server.port,
      [
        httpRequest('POST', '/', [
          ['Authorization', `Bearer ${key}`],
          ['Content-Type', 'application/json'],
          ['Content-Length', '100'],
        ]),
      ],
      { waitMs: 10_000 },
    );
    expectCutCleanly(result, REQUEST_TIMEOUT_MS);
  });

  it('keeps serving others, promptly, while 50 slow clients hold connections', async () => {
    const slow = Array.from({ length: 50 }, (_, index) => exchange(server.port, index % 2 ? slowHeaders(40, 250) : slowBody(40, 250), { waitMs: 10_000 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answers = [];
    for (let index = 0; index < 20; index++) answers.push(await timedRequest());
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(1_000);
    const results = await Promise.all(slow);
    for (const result of results) expect(result.closedByServer).toBe(true);
    expect(Math.max(...results.map((result) => result.elapsedMs))).toBeLessThan(REQUEST_TIMEOUT_MS + CUT_WITHIN_MS);
    expect((await timedRequest()).status).toBe(200);
    expect(server.exitStatus()).toBeUndefined();
  });

  it("logs the cut requests as the clients' doing (4xx), never as server faults", async () => {
    expect((await server.stop()).code).toBe(0);
    const entries = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; status?: number; msg?: string });
    expect(entries.filter((entry) => entry.level >= 50 || (entry.status ?? 0) >= 500)).toEqual([]);
    expect(entries.filter((entry) => entry.status === 400).length).toBeGreaterThanOrEqual(2);
  });
});

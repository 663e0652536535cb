/**
 * The hardened listener in-process, with an app the test controls: what it writes on a
 * connection when Node's request timeout fires while an answer is already on its way.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createListener, type FetchHandler, type ListenerLogger } from '../../src/http/listener.js';
import { requestContract } from '../helpers/contract.js';
import { exchange, httpRequest } from '../robustness/helpers/raw-http.js';

const lines: Array<Record<string, unknown>> = [];
const logger: ListenerLogger = {
  info: (fields) => lines.push({ level: 'info', ...fields }),
  warn: (fields) => lines.push({ level: 'warn', ...fields }),
  error: (fields) => lines.push({ level: 'error', ...fields }),
};

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  lines.length = 0;
});

async function start(
  fetch: FetchHandler,
  requestTimeoutMs = 1_000,
  connections: { max: number; perAddress: number; exempt?: (address: string) => boolean } = { max: 100, perAddress: 100 },
): Promise<number> {
  server = createListener({
    fetch,
    host: '127.0.0.1',
    port: 0,
    name: 'test',
    timeouts: { headersTimeoutMs: 500, requestTimeoutMs, keepAliveTimeoutMs: 5_000 },
    connections,
    logger,
    problemBounds: requestContract.problemBounds,
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('the listener', () => {
  it('writes nothing more on a connection whose answer is under way when the request timeout fires', async () => {
    // An app that answers at once, before the request's body has arrived, and streams its body for 2.5 s
    // (a chunk every 100 ms, so the connection is never idle long enough for the idle timeout to cut it first).
    const port = await start(
      () =>
        new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode('{"items":['));
              for (let chunk = 0; chunk < 25; chunk++) {
                await new Promise((resolve) => setTimeout(resolve, 100));
                controller.enqueue(new TextEncoder().encode(' '));
              }
              controller.enqueue(new TextEncoder().encode('],"nextCursor":null}'));
              controller.close();
            },
          }),
          { status: 200, headers: { 'content-type': 'application/json' } },
        ),
    );
    const result = await exchange(port, [httpRequest('POST', '/', [['Content-Length', '100']], 'ab')], { waitMs: 3_500 });
    // The timeout (1 s, checked every 0.5 s) fired mid-answer: the connection is cut, no 408 is written into the answer.
    expect(result.raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(result.raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']);
    expect(result.raw).not.toContain('request-timeout');
    expect(result.closedByServer).toBe(true);
  });

  it('answers a request timeout with the problem, its headers and a log line when nothing was answered yet', async () => {
    // The idle-connection cut comes at the request timeout: well after the headers timeout (0.5 s, checked every 0.5 s), even on a busy machine.
    const port = await start(() => new Response('{}'), 4_000);
    const result = await exchange(port, ['POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n'], { waitMs: 3_000 });
    expect(result.responses.map((response) => response.status)).toEqual([408]);
    const [answer] = result.responses;
    expect(JSON.parse(answer!.body)).toMatchObject({ type: 'urn:problem-type:request-timeout', requestId: answer!.headers['x-request-id'] });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', status: 408, requestId: answer!.headers['x-request-id'], reason: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    );
  });

  it('holds a trusted proxy to the cap in all only, since its connections carry many clients', async () => {
    const port = await start(() => new Response('{}', { headers: { 'content-type': 'application/json' } }), 1_000, {
      max: 10,
      perAddress: 1,
      exempt: (address) => address === '127.0.0.1',
    });
    const request = (localAddress: string) =>
      exchange(port, [httpRequest('GET', '/', [['Host', '127.0.0.1']])], { localAddress, untilResponses: 1, waitMs: 2_000 });
    const fromProxy = await Promise.all([request('127.0.0.1'), request('127.0.0.1'), request('127.0.0.1')]);
    expect(fromProxy.map((result) => result.responses[0]?.status)).toEqual([200, 200, 200]);
    const fromClient = await Promise.all([request('127.0.0.2'), request('127.0.0.2')]);
    expect(fromClient.map((result) => result.responses[0]?.status).sort()).toEqual([200, undefined]);
  });
});

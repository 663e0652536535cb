/**
 * TRUSTED_PROXIES on the server's real listeners (held in this process): requests that a trusted proxy forwards are counted, and logged,
 * under the client it names, on both listeners; the same header from anyone else is ignored.
 * (`test/server/behind-haproxy.slow.test.ts` puts a real HAProxy in front; `configuration-errors.slow.test.ts` ends a
 * process on an entry that is neither an address nor a range, exit 2.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type InProcessServer, startInProcessServer } from '../helpers/in-process-server.js';
import { exchange, httpRequest } from '../robustness/helpers/raw-http.js';

const database = scratchDatabase('proxies-');
let server: InProcessServer;
let webUrl: string;
beforeAll(async () => {
  server = await startInProcessServer({ databasePath: database.path, env: { TRUSTED_PROXIES: '127.0.0.1', FAILED_AUTH_PER_ADDRESS: '2' } });
  webUrl = /^Web application on (\S+)$/m.exec(server.stderr())?.[1] ?? '';
});
afterAll(async () => {
  await server?.stop();
  database.remove();
});

/** A request with a made-up key, forwarded for `client` (127.0.0.1, the test, is the trusted proxy). */
async function madeUp(client: string): Promise<number> {
  const response = await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${generateApiKey().key}`, 'X-Forwarded-For': client } });
  await response.arrayBuffer();
  return response.status;
}

async function requestLines(): Promise<Array<Record<string, unknown>>> {
  await server.flushLogs();
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"durationMs"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('behind a trusted proxy', () => {
  it('gives each forwarded client its own failed-authentication budget', async () => {
    expect([await madeUp('203.0.113.1'), await madeUp('203.0.113.1'), await madeUp('203.0.113.1')]).toEqual([401, 401, 429]);
    expect(await madeUp('203.0.113.2')).toBe(401);
    // The client cannot move itself out of its budget: the proxy's hop is the one taken, whatever the client wrote before it.
    expect(await madeUp('198.51.100.99, 203.0.113.1')).toBe(429);
  });

  it('logs the forwarded client in the request line of both listeners', async () => {
    const web = await fetch(`${webUrl}/api/session`, { headers: { 'X-Forwarded-For': '203.0.113.3' } });
    await web.arrayBuffer();
    expect(web.status).toBe(401);
    const lines = await requestLines();
    expect(lines.filter((line) => line['path'] === '/shared').map((line) => line['clientAddress'])).toEqual([
      '203.0.113.1',
      '203.0.113.1',
      '203.0.113.1',
      '203.0.113.2',
      '203.0.113.1',
    ]);
    expect(lines.find((line) => line['listener'] === 'web' && line['path'] === '/api/session')).toMatchObject({ clientAddress: '203.0.113.3', status: 401 });
  });

  it('logs the forwarded client in the line of an answer the listener gives outside the app', async () => {
    const { responses } = await exchange(
      server.port,
      [
        httpRequest(
          'GET',
          '/shared',
          [
            ['Host', '127.0.0.1'],
            ['X-Forwarded-For', '203.0.113.4'],
            ['Content-Length', '2'],
          ],
          '{}',
        ),
      ],
      { untilResponses: 1, waitMs: 2_000 },
    );
    expect(responses[0]?.status).toBe(400);
    expect((await requestLines()).find((line) => line['reason'] === 'body-on-get-or-head')).toMatchObject({ clientAddress: '203.0.113.4', status: 400 });
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';

/** A probe or a scrape is one small request: a slow client is cut after this. */
const OPS_TIMEOUT_MS = 10_000;

/**
 * Serves the ops app on its own address (`OPS_HOST`:`OPS_PORT`). Plain Node HTTP with short timeouts: its
 * clients are the orchestrator's probes and the scraper, on a private address, not the public.
 */
export async function listenOps(app: Hono, host: string, port: number): Promise<{ server: Server; url: string }> {
  const server = createServer(getRequestListener(app.fetch));
  server.headersTimeout = OPS_TIMEOUT_MS;
  server.requestTimeout = OPS_TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shown}:${address.port}` };
}

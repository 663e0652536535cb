import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { type ListenerLogger, limitConnections } from '../http/listener.js';

/** A probe or a scrape is one small request: a slow client is cut after this. */
const OPS_TIMEOUT_MS = 10_000;

/**
 * Connections the ops listener holds at most, and from one address: its clients are a few probes, balancers and
 * scrapers, each with one or two connections. Without a cap, idle connections to it (480 were enough with a
 * small open-file limit) took the descriptors the public API needed.
 */
export const OPS_MAX_CONNECTIONS = 64;
export const OPS_MAX_CONNECTIONS_PER_ADDRESS = 16;

export interface OpsListenerOptions {
  host: string;
  port: number;
  logger: ListenerLogger;
}

/**
 * Serves the ops app on its own address (`OPS_HOST`:`OPS_PORT`). Plain Node HTTP with short timeouts and the
 * public listeners' connection caps (`limitConnections`), smaller: its clients are the orchestrator's probes and
 * the scraper, on a private address, not the public.
 */
export async function listenOps(app: Hono, options: OpsListenerOptions): Promise<{ server: Server; url: string }> {
  const server = createServer(getRequestListener(app.fetch));
  server.headersTimeout = OPS_TIMEOUT_MS;
  server.requestTimeout = OPS_TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;
  limitConnections(server, { name: 'ops', logger: options.logger, connections: { max: OPS_MAX_CONNECTIONS, perAddress: OPS_MAX_CONNECTIONS_PER_ADDRESS } });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shown}:${address.port}` };
}

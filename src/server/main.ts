/**
 * Node entry point: `npm start`. Reads the environment, opens the database
 * (creating it on first run, empty), and serves two listeners from one process
 * until SIGTERM/SIGINT: the public API on PORT, and the web application (the
 * pages and the account API) on WEB_PORT, so the session cookie never travels
 * to `{base_url}`.
 */
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import pino from 'pino';
import { createWebApp } from '../account/app.js';
import { readAccountLimits } from '../account/limits.js';
import { readContractPaths } from '../contract/project.js';
import { loadSpec } from '../contract/spec.js';
import { ConfigError, describeDatabase, readServerConfig, type ServerConfig } from '../config/env.js';
import { resolveLimits } from '../config/limits.js';
import { openStore } from '../store/open-store.js';
import { UnsafeLocationError } from '../store/private-files.js';
import { type Store, StoreUnavailable } from '../store/store.js';
import { createApp } from './app.js';
import { clientErrorResponse } from './client-error.js';
import { compileRequestContract } from './request-contract.js';
import { buildPages } from '../pages/assets.js';

let config: ServerConfig;
try {
  config = readServerConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`configuration error: ${error.message}`);
  process.exit(2);
}

// Asynchronous, buffered logging keeps the write off the request path; it is flushed on shutdown.
const logger = pino(
  { level: config.logLevel, base: null, timestamp: pino.stdTimeFunctions.isoTime, redact: ['authorization', '*.authorization', 'headers.authorization'] },
  pino.destination({ dest: 1, sync: false, minLength: 4096 }),
);

const database = describeDatabase(config);
const shared = config.databaseUrl !== undefined;
/** How long a starting instance waits for its database (several starting with it, or a database still booting). */
const STARTUP_WAIT_MS = 30_000;

async function openWithRetry(): Promise<Store> {
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4_000)) {
    try {
      return await openStore(config, {
        onListenerState: (state, error) => {
          if (state === 'listening') logger.info({ database }, 'listening for changes; caches trusted again');
          else
            logger.warn(
              { database, reason: error instanceof Error ? error.message : undefined },
              'change listener dropped: caches bypassed until it reconnects',
            );
          // Rare and what an operator looks for during an outage: written now, not when the buffer fills.
          logger.flush();
        },
      });
    } catch (error) {
      if (!(error instanceof StoreUnavailable) || Date.now() + delay > deadline) throw error;
      logger.warn({ database, reason: error.message, retryInMs: delay }, 'database unavailable at startup; retrying');
      logger.flush();
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

let store: Store;
try {
  store = await openWithRetry();
} catch (error) {
  if (error instanceof UnsafeLocationError) {
    console.error(`configuration error: ${error.message}`);
    process.exit(2);
  }
  if (!(error instanceof StoreUnavailable)) throw error;
  logger.fatal({ database, reason: error.message }, `database unavailable for ${STARTUP_WAIT_MS / 1000} s at startup; exiting`);
  logger.flush();
  console.error(`cannot reach the database (${database}) after ${STARTUP_WAIT_MS / 1000} s: ${error.message}`);
  process.exit(1);
}
const contract = compileRequestContract(loadSpec());
const { headersTimeoutMs, requestTimeoutMs, ...limits } = resolveLimits(contract, config);
const app = createApp({
  store,
  contract,
  logger,
  basePath: config.basePath,
  limits,
  corsOrigins: config.corsOrigins,
  responseValidation: config.responseValidation,
  // One process owns an SQLite file; instances on PostgreSQL share each key's quota.
  rateLimit: shared ? 'shared' : 'local',
});

// Nothing is seeded and no key is made here: the greeting goes to the same stream as the logs, so it never holds a secret.
const empty = (await store.countUsers()) === 0;

/** Serves one app on one port; resolves with its server and root URL once it listens. */
function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, timeouts: { headersTimeoutMs: number; requestTimeoutMs: number }) {
  return new Promise<{ server: Server; url: string }>((resolve, reject) => {
    const server = serve(
      {
        fetch,
        port,
        hostname: config.host,
        serverOptions: {
          headersTimeout: timeouts.headersTimeoutMs,
          requestTimeout: timeouts.requestTimeoutMs,
          keepAliveTimeout: config.keepAliveTimeoutMs,
          // Node checks the two timeouts above only every 30 s by default, so a 1 s headers timeout would hold a slow client for up to 30 s.
          connectionsCheckingInterval: Math.min(1_000, timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
        },
      },
      (info) => resolve({ server, url: `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}` }),
    ) as Server;
    server.once('error', reject);
    // Requests Node rejects before Hono sees them (oversized headers, broken HTTP) still get a problem.
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      if (socket.writable && !socket.destroyed) socket.end(clientErrorResponse(error));
      else socket.destroy();
    });
  });
}

let servers: Server[] = [];
let publicListener: { server: Server; url: string };
let webListener: { server: Server; url: string };
try {
  publicListener = await listen(app.fetch, config.port, { headersTimeoutMs, requestTimeoutMs });
  servers = [publicListener.server];
  const url = `${publicListener.url}${config.basePath}`;
  // The web application: the account API's own contract and limits, and pages that show the public API's URL in their curl.
  const accountSpec = loadSpec(readContractPaths(undefined, 'account').spec);
  const accountContract = compileRequestContract(accountSpec);
  const webApp = createWebApp({
    store,
    contract: accountContract,
    accountLimits: readAccountLimits(accountSpec),
    logger,
    pages: await buildPages({ publicApiUrl: config.publicApiUrl ?? url }),
    ...(config.webOrigin && { origin: config.webOrigin }),
    responseValidation: config.responseValidation,
  });
  const { headersTimeoutSeconds, requestTimeoutSeconds } = accountContract.connectionLimits;
  webListener = await listen(webApp.fetch, config.webPort, { headersTimeoutMs: headersTimeoutSeconds * 1000, requestTimeoutMs: requestTimeoutSeconds * 1000 });
  servers.push(webListener.server);
  logger.info({ url, web: webListener.url, database }, 'listening');
  logger.flush();
  announce(url, webListener.url);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(code === 'EADDRINUSE' ? `could not listen: ${(error as Error).message}; set PORT and WEB_PORT to free ports` : error);
  for (const server of servers) server.close();
  await store.close();
  process.exit(1);
}

function announce(url: string, webUrl: string): void {
  // Printed whatever LOG_LEVEL says: scripts and tests wait for these lines to learn the URLs (PORT=0 and WEB_PORT=0 pick free ports).
  const lines = [
    `Listening on ${url}`,
    `Web application on ${webUrl}`,
    '',
    `Open ${webUrl} in a browser: create an account, generate an API key, and run the curl command it shows.`,
    '',
    `Serving ${database}${empty ? ', which has no users yet' : ''}.`,
    ...(empty
      ? [`For sample data to try the API on: ${shared ? 'DATABASE_URL=... ' : ''}npm run seed, then npm run keys -- create --user demo for its key.`]
      : []),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
  // Close stops accepting; idle keep-alive sockets are closed now, busy ones after their response.
  const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
  void Promise.all(closed).then(() => {
    clearTimeout(deadline);
    clearInterval(sweep);
    void store.close().finally(() => {
      logger.info('stopped');
      logger.flush(() => process.exit(0));
    });
  });
  for (const server of servers) server.closeIdleConnections();
  // close() only closes the connections idle at this moment; a busy keep-alive connection would otherwise stay open until its keep-alive timeout after its response.
  const sweep = setInterval(() => {
    for (const server of servers) server.closeIdleConnections();
  }, 100);
  sweep.unref();
  const deadline = setTimeout(() => {
    logger.error({ graceMs: config.shutdownGraceMs }, 'requests still running after the grace period; closing their connections');
    for (const server of servers) server.closeAllConnections();
  }, config.shutdownGraceMs);
  deadline.unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('uncaughtException', (error) => {
  logger.fatal({ err: error }, 'uncaught exception');
  logger.flush(() => process.exit(1));
});

/**
 * Node entry point: `npm start`. Reads the environment, opens the database
 * (creating it on first run, empty), and serves two listeners from one process
 * until SIGTERM/SIGINT: the public API on PORT, and the web application (the
 * pages and the account API) on WEB_PORT, each with its own contract, headers
 * and CORS (where the session cookie travels: docs/web-application.md).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import pino from 'pino';
import { createWebApp } from '../account/app.js';
import { ConfigError, checkHostResolves, configurationWarnings, describeDatabase, readServerConfig, type ServerConfig } from '../config/env.js';
import { resolveLimits } from '../config/limits.js';
import { npmScript } from '../config/npm-script.js';
import { SECRET_VARIABLES, type SecretName } from '../config/secrets.js';
import { readLimits } from '../contract/limits.js';
import { loadContractSpec, loadSpec } from '../contract/spec.js';
import { clientAddress, incomingAddress, trustedProxy } from '../http/client-address.js';
import { closeConnectionsAfterAnswers, type FetchHandler, listen as listenOn } from '../http/listener.js';
import { compileRequestContract } from '../http/request-contract.js';
import { destinationRequestLines, isoTimeOncePerMillisecond } from '../http/request-lines.js';
import type { Telemetry } from '../http/telemetry.js';
import { logFields, readBuildInfo } from '../ops/build-info.js';
import { addServerChecks } from '../ops/checks.js';
import { withoutUserInfo } from '../ops/export-failures.js';
import { createMetrics } from '../ops/metrics.js';
import { createOpsApp } from '../ops/ops-app.js';
import { listenOps } from '../ops/ops-listener.js';
import { Readiness } from '../ops/readiness.js';
import type { Tracing } from '../ops/tracing.js';
import { buildPages } from '../pages/assets.js';
import { openStore } from '../store/open-store.js';
import { connectionRefusedByConfiguration } from '../store/postgres-store.js';
import { UnsafeLocationError, UnwritableLocationError } from '../store/private-files.js';
import { startRetention } from '../store/retention.js';
import { SchemaTooNew } from '../store/schema-policy.js';
import { checkSecrets, loadSecrets, SECRETS_REFRESH_MS, type SecretSource } from '../store/secrets.js';
import { type Store, StoreUnavailable } from '../store/store.js';
import { createApp } from './app.js';
import { BatchedLog } from './batched-log.js';
import { waitForListenSignal } from './listen-on-signal.js';

let config: ServerConfig;
let resolved: ReturnType<typeof resolveLimits>;
const contract = compileRequestContract(loadSpec(), 'main');
// The web application's contract and limits: the account API, with its own bounds.
const accountSpec = loadContractSpec('account');
const accountContract = compileRequestContract(accountSpec, 'account');
const accountLimits = readLimits(accountSpec, 'account');
try {
  config = readServerConfig();
  resolved = resolveLimits(contract, config);
  await checkHostResolves(config.host);
  if (config.ops) await checkHostResolves(config.ops.host);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`configuration error: ${error.message}`);
  process.exit(2);
}

/** The longest a log line waits in the buffer: what SIGKILL can lose on a quiet server. */
const LOG_FLUSH_INTERVAL_MS = 1_000;
// Asynchronous, buffered logging keeps the write off the request path. The buffer is written when it holds 16 KiB
// (about 50 request lines: each write is a trip to libuv's thread pool, which at 4 KiB cost about 1 µs per request
// under the bench's load), every second (so a quiet server's last refused requests are on disk too), on SIGHUP and
// on shutdown.
const logStream = pino.destination({ dest: 1, sync: false, minLength: 16 * 1024, maxWrite: 64 * 1024, periodicFlush: LOG_FLUSH_INTERVAL_MS });
// pino already stops logging quietly when stdout's reader is gone (EPIPE); any other write error (EIO once a
// terminal hangs up) must not bring the server down with it. Said once on stderr, which may be gone too.
let logStreamFailed = false;
logStream.on('error', (error: NodeJS.ErrnoException) => {
  if (logStreamFailed) return;
  logStreamFailed = true;
  try {
    process.stderr.write(`log stream failed (${error.code ?? error.message}); the server keeps serving, its log lines may be lost\n`);
  } catch {
    // nowhere left to say it
  }
});
// Every line, pino's and the request lines, goes through one batch per turn of the event loop into logStream.
const log = new BatchedLog(logStream);
// Which release this is, named the same way in the log, /readyz, /metrics, the spans and the greeting (build-info.ts).
const build = readBuildInfo();
const logger = pino(
  // pino's lines carry the release (the request lines, one per request, leave it out: see docs/observability.md).
  {
    level: config.logLevel,
    base: logFields(build),
    timestamp: isoTimeOncePerMillisecond,
    redact: ['authorization', '*.authorization', 'headers.authorization'],
  },
  log,
);
for (const warning of configurationWarnings()) logger.warn({ warning }, `configuration: ${warning}`);

// The one line per request, built by hand and written into the same stream and its one buffer (request-lines.ts).
const requestLines = destinationRequestLines((text) => log.write(text));
/** Writes every waiting line now (the request lines are in pino's buffer too). */
function flushLogs(done?: () => void): void {
  if (done) logger.flush(done);
  else logger.flush();
}

// Registered before anything is opened: a signal during startup (or the instant after the greeting, which is
// what a script waiting for it sends) ends the process through shutdown, with exit code 0, not by the default action.
let store: Store | undefined;
let servers: Server[] = [];
let retention: { stop(): void } | undefined;
let opsServer: Server | undefined;
let tracing: Tracing | undefined;
let opsUrl: string | undefined;
/** Set on SIGTERM/SIGINT: `/readyz` answers 503 from then on, while the listeners go on serving for the delay. */
let draining = false;
let stopping = false;
let closeNow: (() => void) | undefined;
function shutdown(signal: string): void {
  if (stopping) {
    // A second signal during the delay: the operator means now.
    closeNow?.();
    return;
  }
  stopping = true;
  draining = true;
  for (const server of servers) closeConnectionsAfterAnswers(server);
  const delayMs = servers.length > 0 ? config.shutdownDelaySeconds * 1000 : 0;
  logger.info({ signal, delaySeconds: delayMs / 1000 }, 'draining: /readyz answers 503 now; the listeners close after the delay');
  flushLogs();
  const delay = setTimeout(closeListeners, delayMs);
  closeNow = () => {
    clearTimeout(delay);
    closeListeners();
  };
}
function closeListeners(): void {
  closeNow = () => undefined;
  logger.info('shutting down: no new connections, finishing in-flight requests');
  // Close stops accepting; idle keep-alive sockets are closed now, busy ones after their response.
  const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
  void Promise.all(closed).then(() => {
    clearTimeout(deadline);
    clearInterval(sweep);
    retention?.stop();
    void (store?.close() ?? Promise.resolve()).finally(async () => {
      await tracing?.shutdown(2_000);
      opsServer?.closeAllConnections();
      opsServer?.close();
      logger.info('stopped');
      flushLogs(() => process.exit(0));
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
// By default SIGHUP ends the process at once, losing the buffered lines. Here it is the usual "reopen your logs":
// stdout is not a file to reopen, so the buffer is written now, and the server goes on.
process.on('SIGHUP', () => {
  logger.info({ signal: 'SIGHUP' }, 'SIGHUP: logs flushed; still serving (SIGTERM or SIGINT stops the server)');
  flushLogs();
});

// Held here by `npm run dev` (LISTEN_ON_SIGNAL=1) while it checks a save: ready, without a port or the database yet.
if (config.listenOnSignal) await waitForListenSignal();

// The ops listener first: /livez answers while the database is opened and migrated, and /readyz says that it is.
const readiness = addServerChecks(new Readiness(), {
  store: () => store,
  draining: () => draining,
  // At most once a second (the check's own interval): the reason /readyz gives leaves the driver's text out.
  onDatabaseError: (error) => logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'readiness: the database does not answer'),
});
// Metrics are measured only when there is somewhere to scrape them: without OPS_PORT, nothing is counted.
const metrics = config.ops ? createMetrics({ storeStats: () => store?.stats?.(), pool: config.databaseUrl !== undefined, build }) : undefined;
// Tracing's packages are loaded only when there is a collector to send to: without it, they cost nothing.
if (config.otlpEndpoint) {
  // Any user and password in the endpoint's URL stay out of the log lines.
  const endpoint = withoutUserInfo(config.otlpEndpoint);
  tracing = (await import('../ops/tracing.js')).startTracing({
    endpoint: config.otlpEndpoint,
    serviceName: config.serviceName,
    build,
    onExportFailure: ({ reason, failures }) =>
      logger.warn({ endpoint, reason, failures }, `tracing: ${failures} span export(s) failed (${reason}); spans are dropped while the collector is away`),
  });
  logger.info({ endpoint, serviceName: config.serviceName }, 'tracing: spans exported over OTLP/HTTP');
}
const telemetry: Telemetry = { observer: metrics?.observer, tracing: tracing?.middleware };
if (config.ops) {
  try {
    const ops = await listenOps(createOpsApp({ readiness, metrics, build }), { host: config.ops.host, port: config.ops.port, logger });
    opsServer = ops.server;
    opsUrl = ops.url;
    logger.info({ ops: ops.url }, 'ops listener: /livez, /readyz, /metrics');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') {
      console.error(`configuration error: OPS_HOST ${JSON.stringify(config.ops.host)} is not an address of this machine (EADDRNOTAVAIL)`);
      process.exit(2);
    }
    console.error(`could not listen for ops on ${config.ops.host}:${config.ops.port}: ${(error as Error).message}; set OPS_PORT to a free port`);
    process.exit(1);
  }
}

const database = describeDatabase(config);
const shared = config.databaseUrl !== undefined;
const inMemory = !shared && config.databasePath === ':memory:';
/** How long a starting instance waits for its database (several starting with it, or a database still booting). */
const STARTUP_WAIT_MS = 30_000;

async function openWithRetry(): Promise<Store> {
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4_000)) {
    try {
      return await openStore(config, {
        wrapEngine: tracing?.traceStore,
        onListenerState: (state, error) => {
          if (state === 'listening') logger.info({ database }, 'listening for changes; caches trusted again');
          else
            logger.warn(
              { database, reason: error instanceof Error ? error.message : undefined },
              'change listener dropped: caches bypassed until it reconnects',
            );
          // Rare and what an operator looks for during an outage: written now, not when the buffer fills.
          flushLogs();
        },
      });
    } catch (error) {
      if (!(error instanceof StoreUnavailable) || Date.now() + delay > deadline) throw error;
      logger.warn({ database, reason: error.message, retryInMs: delay }, 'database unavailable at startup; retrying');
      flushLogs();
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

try {
  store = await openWithRetry();
} catch (error) {
  const refusal =
    error instanceof UnsafeLocationError || error instanceof UnwritableLocationError || error instanceof SchemaTooNew
      ? error.message
      : config.databaseUrl
        ? connectionRefusedByConfiguration(error, config.databaseUrl)
        : undefined;
  if (refusal !== undefined) {
    logger.fatal({ database, reason: refusal }, 'configuration error');
    flushLogs();
    console.error(`configuration error: ${refusal}`);
    process.exit(2);
  }
  if (!(error instanceof StoreUnavailable)) throw error;
  logger.fatal({ database, reason: error.message }, `database unavailable for ${STARTUP_WAIT_MS / 1000} s at startup; exiting`);
  flushLogs();
  console.error(`cannot reach the database (${database}) after ${STARTUP_WAIT_MS / 1000} s: ${error.message}`);
  process.exit(1);
}
// The secrets: the environment's lists where given, else the database's. An instance given a list that the
// instances already running disagree with is told here, and is not ready while they run (`checkSecrets`).
const secretRings = await loadSecrets(store, config.secrets);
const secretsInstance = { id: randomUUID(), since: Date.now() };
const secretsStore = store;
const checkOurSecrets = () => checkSecrets(secretsStore, secretRings, secretsInstance);
let agreement = await checkOurSecrets();
if (!agreement.ok) logger.warn({ reason: agreement.reason }, 'secrets disagree with another instance on this database');
/** Asks the database again, at most once a second however many probes call; while it is away, the last answer stands (ADR 0034). */
let agreementCheckedAt = Date.now();
const refreshAgreement = async () => {
  if (Date.now() - agreementCheckedAt < 1_000) return;
  agreementCheckedAt = Date.now();
  agreement = await checkOurSecrets().catch(() => agreement);
};
// Refreshed without probes too: an entry not refreshed for a minute is an instance that is gone.
setInterval(() => void refreshAgreement(), SECRETS_REFRESH_MS).unref();
const secrets: SecretSource = async (name) => secretRings[name];
readiness.add('secrets', async () => {
  await refreshAgreement();
  return agreement.ok ? undefined : agreement.reason;
});
const { headersTimeoutMs, requestTimeoutMs, ...limits } = resolved;
// One resolver for both listeners: every per-client limit and the request lines see the same address.
const client = clientAddress(config.trustedProxies);
const clientOfIncoming = incomingAddress(config.trustedProxies);
const fromTrustedProxy = config.trustedProxies.addresses.length > 0 ? trustedProxy(config.trustedProxies.addresses) : undefined;
const app = createApp({
  store,
  contract,
  logger,
  requestLines,
  basePath: config.basePath,
  limits,
  corsOrigins: config.corsOrigins,
  responseValidation: config.responseValidation,
  // One process owns an SQLite file; instances on PostgreSQL share each key's quota.
  rateLimit: shared ? 'shared' : 'local',
  secrets,
  clientAddress: client,
  telemetry,
});

// Nothing is seeded and no key is made here: the greeting is printed where anyone may read it, so it never holds a secret.
const empty = (await store.countUsers()) === 0;

/** Serves one app on one port, behind the hardened listener; resolves with its server and root URL once it listens. */
function listen(
  name: string,
  fetch: FetchHandler,
  port: number,
  timeouts: { headersTimeoutMs: number; requestTimeoutMs: number },
  bounds: typeof contract.problemBounds,
) {
  return listenOn({
    name,
    fetch,
    host: config.host,
    port,
    timeouts: { ...timeouts, keepAliveTimeoutMs: config.keepAliveTimeoutMs },
    connections: { max: config.maxConnections, perAddress: config.maxConnectionsPerAddress, exempt: fromTrustedProxy },
    logger,
    problemBounds: bounds,
    clientAddress: clientOfIncoming,
  });
}

let publicListener: { server: Server; url: string };
let webListener: { server: Server; url: string };
try {
  publicListener = await listen('api', app.fetch, config.port, { headersTimeoutMs, requestTimeoutMs }, contract.problemBounds);
  servers = [publicListener.server];
  const url = `${publicListener.url}${config.basePath}`;
  // The web application: pages that show the public API's URL in their curl.
  const webApp = createWebApp({
    store,
    contract: accountContract,
    accountLimits,
    logger,
    requestLines,
    pages: await buildPages({ publicApiUrl: config.publicApiUrl ?? url }),
    ...(config.webOrigin && { origin: config.webOrigin }),
    responseValidation: config.responseValidation,
    clientAddress: client,
    secrets,
    telemetry,
  });
  const { headersTimeoutSeconds, requestTimeoutSeconds } = accountContract.connectionLimits;
  webListener = await listen(
    'web',
    webApp.fetch,
    config.webPort,
    { headersTimeoutMs: headersTimeoutSeconds * 1000, requestTimeoutMs: requestTimeoutSeconds * 1000 },
    accountContract.problemBounds,
  );
  servers.push(webListener.server);
  retention = startRetention(
    store,
    {
      sessionIdleMs: accountLimits.session.idleSeconds * 1000,
      attemptsForgetMs: Math.max(accountLimits.signIn.windowSeconds, accountLimits.signUp.windowSeconds) * 1000,
      keyHistoryDays: config.keyEventsRetentionDays,
    },
    {
      pruned: (pruned) => {
        if (Object.values(pruned).some((count) => count > 0)) logger.info({ ...pruned, keyEventsRetentionDays: config.keyEventsRetentionDays }, 'pruned');
      },
      failed: (error) => {
        if (!stopping) logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'pruning failed; tried again at the next pass');
      },
    },
  );
  logger.info(
    {
      url,
      web: webListener.url,
      ...(opsUrl && { ops: opsUrl }),
      database,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
      ...(fromTrustedProxy && { trustedProxies: config.trustedProxies }),
      secrets: Object.fromEntries(
        (Object.keys(SECRET_VARIABLES) as SecretName[]).map((name) => [
          name,
          config.secrets[name] ? `${SECRET_VARIABLES[name]} (${config.secrets[name]?.length})` : 'database',
        ]),
      ),
    },
    'listening',
  );
  warnOnOpenFileLimit(servers.length);
  flushLogs();
  announce(url, webListener.url);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  for (const server of servers) server.close();
  await store.close();
  if (code === 'EADDRNOTAVAIL') {
    console.error(
      `configuration error: HOST ${JSON.stringify(config.host)} is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its addresses, or 0.0.0.0`,
    );
    process.exit(2);
  }
  console.error(code === 'EADDRINUSE' ? `could not listen: ${(error as Error).message}; set PORT and WEB_PORT to free ports` : error);
  process.exit(1);
}

/**
 * Warns when the process may not open as many files as its listeners may hold connections (the
 * usual soft limit is 1,024): past it, accept() fails and the database cannot open a file.
 */
function warnOnOpenFileLimit(listeners: number): void {
  let limit: number | undefined;
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    limit = line ? Number(line[1]) : undefined;
  } catch {
    return; // not Linux: nothing to read
  }
  // A few dozen descriptors for the database, its WAL, stdio and the PostgreSQL pool.
  const needed = listeners * config.maxConnections + 64;
  if (limit !== undefined && needed > limit)
    logger.warn(
      { openFileLimit: limit, maxConnections: config.maxConnections, listeners },
      `the open-file limit (${limit}) is below what ${listeners} listeners of MAX_CONNECTIONS=${config.maxConnections} may need (${needed}): raise it (ulimit -n, LimitNOFILE=) or lower MAX_CONNECTIONS`,
    );
}

function announce(url: string, webUrl: string): void {
  // Printed whatever LOG_LEVEL says: scripts and tests wait for these lines to learn the URLs (PORT=0 and WEB_PORT=0 pick free ports).
  // On stderr: stdout carries JSON log lines only, for a log shipper to parse (the `listening` line says the same in JSON).
  const lines = [
    `Bearer List API ${build.version} (commit ${build.commit.slice(0, 12)}, schema ${build.schemaVersion})`,
    `Listening on ${url}`,
    `Web application on ${webUrl}`,
    ...(opsUrl ? [`Probes and metrics on ${opsUrl} (/livez, /readyz, /metrics)`] : []),
    '',
    `Open ${webUrl} in a browser: create an account, generate an API key, and run the curl command it shows.`,
    '',
    `Serving ${database}${empty ? ', which has no users yet' : ''}.`,
    ...(empty && inMemory ? ['It is in memory: gone when the server stops, and out of reach of npm run seed and npm run keys (other processes).'] : []),
    ...(empty && !inMemory
      ? [
          `For sample data to try the API on: ${shared ? 'DATABASE_URL=... ' : ''}${npmScript('seed')}, then ${npmScript('keys')} -- create --user demo for its key.`,
        ]
      : []),
    '',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

process.on('uncaughtException', (error) => {
  logger.fatal({ err: error }, 'uncaught exception');
  flushLogs(() => process.exit(1));
});

/**
 * The server process as a value: `createServerProcess(config)` compiles both contracts and opens the log;
 * `listen()` opens the ops listener, the database and the two listeners (the public API on PORT, the web
 * application on WEB_PORT); `drain(signal)` and `close()` stop it. `main.ts` is the process around it (the
 * environment, signals, exit codes); a test or a tool holds it in-process the same way (ADR 0036).
 */
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createWebApp } from '../account/app.js';
import { checkHostResolves, describeDatabase, type ServerConfig } from '../config/env.js';
import { resolveLimits } from '../config/limits.js';
import { SECRET_VARIABLES, type SecretName } from '../config/secrets.js';
import { readLimits } from '../contract/limits.js';
import { loadContractSpec, loadSpec } from '../contract/spec.js';
import { clientAddress, incomingAddress, trustedProxy } from '../http/client-address.js';
import { type FetchHandler, listen as listenOn } from '../http/listener.js';
import { compileRequestContract, type RequestContract } from '../http/request-contract.js';
import { readBuildInfo } from '../ops/build-info.js';
import { buildPages } from '../pages/assets.js';
import type { Store } from '../store/store.js';
import { createApp } from './app.js';
import type { Destination } from './batched-log.js';
import { greeting, warnOnOpenFileLimit } from './greeting.js';
import { type Observability, startObservability } from './observability.js';
import { openDatabase } from './open-database.js';
import { pruneOnSchedule } from './pruning.js';
import { agreeOnSecrets, type SecretsAgreement } from './secrets-agreement.js';
import { createServerLog, stdoutLog } from './server-log.js';
import { Shutdown } from './shutdown.js';
import { StartFailure } from './start-failure.js';

export interface ServerProcessOptions {
  /** Where the log lines go (JSON, one a line); standard output, buffered, by default. */
  log?: Destination;
  /** Where the greeting goes once the listeners are up; standard error by default. */
  greet?: (text: string) => void;
  /** Said as warnings first thing in the log (`configurationWarnings()` of the environment the config was read from). */
  warnings?: readonly string[];
}

/** Where a listening server answers. */
export interface ServerAddresses {
  /** The public API's root, with BASE_PATH. */
  url: string;
  webUrl: string;
  /** The ops listener's root when OPS_PORT is set. */
  opsUrl: string | undefined;
}

export interface ServerProcess {
  readonly logger: Logger;
  /** Writes every waiting log line now, then calls `done`. */
  flushLogs(done?: () => void): void;
  /** Opens the ops listener, the database (waiting for it), and both listeners; then prints the greeting. A `StartFailure` when it cannot. */
  listen(): Promise<ServerAddresses>;
  /** SIGTERM's way: `/readyz` answers 503 and answers close their connections for SHUTDOWN_DELAY_SECONDS, then `close()`. A second call closes now. */
  drain(signal: string): Promise<void>;
  /** Stops taking connections, finishes what is in flight (SHUTDOWN_GRACE_MS at most), closes the store; resolves once all is closed. */
  close(): Promise<void>;
}

/**
 * The server, ready to listen: both contracts compiled, the limits resolved, the hosts checked (a `ConfigError` when
 * the configuration cannot work), the log open. Nothing listens and no database is open until `listen()`.
 */
export async function createServerProcess(config: ServerConfig, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const contract = compileRequestContract(loadSpec(), 'main');
  // The web application's contract and limits: the account API, with its own bounds.
  const accountSpec = loadContractSpec('account');
  const accountContract = compileRequestContract(accountSpec, 'account');
  const accountLimits = readLimits(accountSpec, 'account');
  const { headersTimeoutMs, requestTimeoutMs, ...limits } = resolveLimits(contract, config);
  await checkHostResolves(config.host);
  if (config.ops) await checkHostResolves(config.ops.host);

  // Which release this is, named the same way in the log, /readyz, /metrics, the spans and the greeting (build-info.ts).
  const build = readBuildInfo();
  const { logger, requestLines, flush: flushLogs } = createServerLog(options.log ?? stdoutLog(), { level: config.logLevel, build });
  for (const warning of options.warnings ?? []) logger.warn({ warning }, `configuration: ${warning}`);

  let store: Store | undefined;
  let observability: Observability | undefined;
  let agreement: SecretsAgreement | undefined;
  let retention: { stop(): void } | undefined;
  const servers: Server[] = [];
  const shutdown = new Shutdown({
    listeners: () => servers,
    delaySeconds: config.shutdownDelaySeconds,
    graceMs: config.shutdownGraceMs,
    logger,
    flushLogs,
    async closeRest() {
      retention?.stop();
      agreement?.stop();
      try {
        await store?.close();
      } finally {
        await observability?.tracing?.shutdown(2_000);
        observability?.ops?.server.closeAllConnections();
        observability?.ops?.server.close();
      }
    },
  });

  const database = describeDatabase(config);
  const shared = config.databaseUrl !== undefined;
  // One resolver for both listeners: every per-client limit and the request lines see the same address.
  const client = clientAddress(config.trustedProxies);
  const clientOfIncoming = incomingAddress(config.trustedProxies);
  const fromTrustedProxy = config.trustedProxies.addresses.length > 0 ? trustedProxy(config.trustedProxies.addresses) : undefined;
  /** Serves one app on one port, behind the hardened listener; resolves with its root URL once it listens. */
  const serve = async (
    name: string,
    fetch: FetchHandler,
    port: number,
    timeouts: { headersTimeoutMs: number; requestTimeoutMs: number },
    on: RequestContract,
  ) => {
    const listener = await listenOn({
      name,
      fetch,
      host: config.host,
      port,
      timeouts: { ...timeouts, keepAliveTimeoutMs: config.keepAliveTimeoutMs },
      connections: { max: config.maxConnections, perAddress: config.maxConnectionsPerAddress, exempt: fromTrustedProxy },
      logger,
      problemBounds: on.problemBounds,
      clientAddress: clientOfIncoming,
    });
    servers.push(listener.server);
    return listener.url;
  };

  async function listen(): Promise<ServerAddresses> {
    observability = await startObservability(config, { logger, build, store: () => store, draining: () => shutdown.draining });
    const { readiness, telemetry, ops } = observability;
    const opened = await openDatabase(config, { logger, flushLogs, tracing: observability.tracing });
    store = opened;
    agreement = await agreeOnSecrets(opened, config.secrets, logger);
    readiness.add('secrets', agreement.check);
    const { secrets } = agreement;
    const app = createApp({
      store: opened,
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
      clientIpv6PrefixLength: config.clientIpv6PrefixLength,
      telemetry,
    });
    const empty = (await opened.countUsers()) === 0;
    try {
      const url = `${await serve('api', app.fetch, config.port, { headersTimeoutMs, requestTimeoutMs }, contract)}${config.basePath}`;
      // The web application: pages that show the public API's URL in their curl.
      const webApp = createWebApp({
        store: opened,
        contract: accountContract,
        accountLimits,
        logger,
        requestLines,
        pages: await buildPages({ publicApiUrl: config.publicApiUrl ?? url }),
        ...(config.webOrigin && { origin: config.webOrigin }),
        responseValidation: config.responseValidation,
        clientAddress: client,
        clientIpv6PrefixLength: config.clientIpv6PrefixLength,
        budgets: shared ? 'shared' : 'local',
        secrets,
        telemetry,
      });
      const { headersTimeoutSeconds, requestTimeoutSeconds } = accountContract.connectionLimits;
      const webTimeouts = { headersTimeoutMs: headersTimeoutSeconds * 1000, requestTimeoutMs: requestTimeoutSeconds * 1000 };
      const webUrl = await serve('web', webApp.fetch, config.webPort, webTimeouts, accountContract);
      retention = pruneOnSchedule(opened, { account: accountLimits, keyEventsRetentionDays: config.keyEventsRetentionDays }, logger, () => shutdown.draining);
      logger.info(
        {
          url,
          web: webUrl,
          ...(ops && { ops: ops.url }),
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
      warnOnOpenFileLimit(logger, servers.length, config.maxConnections);
      flushLogs();
      const inMemory = !shared && config.databasePath === ':memory:';
      const greet = options.greet ?? ((text: string) => process.stderr.write(text));
      const plainHttp = !(config.webOrigin ?? webUrl).startsWith('https://');
      greet(greeting({ build, url, webUrl, opsUrl: ops?.url, database, empty, inMemory, shared, plainHttp }));
      return { url, webUrl, opsUrl: ops?.url };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      for (const server of servers) server.close();
      await opened.close();
      if (code === 'EADDRNOTAVAIL')
        throw new StartFailure(
          2,
          `configuration error: HOST ${JSON.stringify(config.host)} is not an address of this machine (EADDRNOTAVAIL): set HOST to one of its addresses, or 0.0.0.0`,
        );
      throw new StartFailure(1, code === 'EADDRINUSE' ? `could not listen: ${(error as Error).message}; set PORT and WEB_PORT to free ports` : error);
    }
  }

  return {
    logger,
    flushLogs,
    listen,
    drain: (signal) => shutdown.stop(signal),
    close: () => shutdown.stop(undefined, 0),
  };
}

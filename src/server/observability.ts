import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/env.js';
import type { Telemetry } from '../http/telemetry.js';
import type { BuildInfo } from '../ops/build-info.js';
import { addServerChecks } from '../ops/checks.js';
import { withoutUserInfo } from '../ops/export-failures.js';
import { createMetrics } from '../ops/metrics.js';
import { createOpsApp } from '../ops/ops-app.js';
import { listenOps } from '../ops/ops-listener.js';
import { Readiness } from '../ops/readiness.js';
import type { Tracing } from '../ops/tracing.js';
import type { Store } from '../store/store.js';
import { StartFailure } from './start-failure.js';

/** What operators watch: readiness, the metrics' observer and the spans, and the ops listener that serves the first two. */
export interface Observability {
  readiness: Readiness;
  telemetry: Telemetry;
  tracing: Tracing | undefined;
  /** The ops listener, when `OPS_PORT` is set. */
  ops: { server: Server; url: string } | undefined;
}

export interface ObservabilityOptions {
  logger: Logger;
  build: BuildInfo;
  /** Undefined while the database is opened and migrated. */
  store: () => Store | undefined;
  draining: () => boolean;
}

/**
 * Readiness, metrics and tracing, and the ops listener first of all: `/livez` answers while the database is opened
 * and migrated, and `/readyz` says that it is. A `StartFailure` when the ops listener cannot listen.
 */
export async function startObservability(config: ServerConfig, { logger, build, store, draining }: ObservabilityOptions): Promise<Observability> {
  const readiness = addServerChecks(new Readiness(), {
    store,
    draining,
    // At most once a second (the check's own interval): the reason /readyz gives leaves the driver's text out.
    onDatabaseError: (error) => logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'readiness: the database does not answer'),
  });
  // Metrics are measured only when there is somewhere to scrape them: without OPS_PORT, nothing is counted.
  const metrics = config.ops ? createMetrics({ storeStats: () => store()?.stats?.(), pool: config.databaseUrl !== undefined, build }) : undefined;
  const tracing = config.otlpEndpoint ? await startTracing(config, config.otlpEndpoint, logger, build) : undefined;
  const telemetry: Telemetry = { observer: metrics?.observer, tracing: tracing?.middleware };
  if (!config.ops) return { readiness, telemetry, tracing, ops: undefined };
  try {
    const ops = await listenOps(createOpsApp({ readiness, metrics, build }), { host: config.ops.host, port: config.ops.port, logger });
    logger.info({ ops: ops.url }, 'ops listener: /livez, /readyz, /metrics');
    return { readiness, telemetry, tracing, ops };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL')
      throw new StartFailure(2, `configuration error: OPS_HOST ${JSON.stringify(config.ops.host)} is not an address of this machine (EADDRNOTAVAIL)`);
    throw new StartFailure(1, `could not listen for ops on ${config.ops.host}:${config.ops.port}: ${(error as Error).message}; set OPS_PORT to a free port`);
  }
}

/** Tracing's packages are loaded only when there is a collector to send to: without it, they cost nothing. */
async function startTracing(config: ServerConfig, otlpEndpoint: string, logger: Logger, build: BuildInfo): Promise<Tracing> {
  // Any user and password in the endpoint's URL stay out of the log lines.
  const endpoint = withoutUserInfo(otlpEndpoint);
  const tracing = (await import('../ops/tracing.js')).startTracing({
    endpoint: otlpEndpoint,
    serviceName: config.serviceName,
    build,
    onExportFailure: ({ reason, failures }) =>
      logger.warn({ endpoint, reason, failures }, `tracing: ${failures} span export(s) failed (${reason}); spans are dropped while the collector is away`),
  });
  logger.info({ endpoint, serviceName: config.serviceName }, 'tracing: spans exported over OTLP/HTTP');
  return tracing;
}

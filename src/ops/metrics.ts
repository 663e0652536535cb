import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { AnsweredRequest, RequestObserver } from '../http/telemetry.js';
import type { StoreStats } from '../store/store.js';
import type { BuildInfo } from './build-info.js';
import type { MetricsSource } from './ops-app.js';
import { TalliedHistogram } from './tallied-histogram.js';

/** OpenTelemetry's advice for `http.server.request.duration`, in seconds. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The metrics of one server process: the registry `/metrics` serves, and the observer the contract apps report to. */
export interface Metrics extends MetricsSource {
  readonly registry: Registry;
  readonly observer: RequestObserver;
}

export interface MetricsOptions {
  /** The store's counters, read at each scrape (`Store.stats`); undefined while it is not open. */
  storeStats: () => StoreStats | undefined;
  /** prom-client's process metrics (CPU, memory, heap, event-loop lag, handles). Default on. */
  processMetrics?: boolean;
  /** Whether the store has a connection pool (PostgreSQL), whose gauges are then served. */
  pool?: boolean;
  /** The release this process runs, served as `build_info` (`build-info.ts`). */
  build?: BuildInfo;
}

/**
 * The server's metrics on prom-client, named after OpenTelemetry's semantic conventions where they have a name
 * (`http.server.request.duration` is `http_server_request_duration_seconds`, `db.client.connection.count` is
 * `db_client_connection_count`). Every label has few values: the API, the operationId, the status, a reason
 * from a fixed list; never a user, a key, an address or a path. The request path costs one histogram
 * observation (its labelled child found in a map) and, for a refusal, one counter increment; the store's
 * counters are read only when scraped.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const duration = new TalliedHistogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests answered by the public API (api="main") and the web application (api="account"), by operationId and status.',
    labelNames: ['api', 'operation', 'http_response_status_code'] as const,
    buckets: REQUEST_DURATION_BUCKETS,
    registers,
  });
  const refusals = new Counter({
    name: 'http_server_refusals_total',
    help: 'Requests refused by a limit or a rule, by reason: rate-limit, failed-authentication-budget, sign-in-limit, sign-up-limit, cross-origin, password-checks-busy, database-unavailable.',
    labelNames: ['api', 'reason'] as const,
    registers,
  });
  const authenticationFailures = new Counter({
    name: 'http_server_authentication_failures_total',
    help: 'Requests whose credential was refused (401), by reason: missing-credential, wrong-scheme, malformed-key, unknown-key, revoked-key, expired-key, rolled-key, no-session, wrong-password.',
    labelNames: ['api', 'reason'] as const,
    registers,
  });
  new Counter({
    name: 'key_cache_lookups_total',
    help: 'API key lookups by the key cache (ADR 0023), by result: hit (answered from memory) or miss (asked the database).',
    labelNames: ['result'] as const,
    registers,
    collect() {
      const lookups = options.storeStats()?.keyCache;
      if (!lookups) return;
      this.reset();
      this.inc({ result: 'hit' }, lookups.hits);
      this.inc({ result: 'miss' }, lookups.misses);
    },
  });
  if (options.pool) poolGauges(registry, options.storeStats);
  if (options.build) {
    // Prometheus' convention for a release: a gauge that is always 1, whose labels say which (joined onto any series by instance).
    const build = new Gauge({
      name: 'build_info',
      help: 'The release this instance runs: version, commit, the schema version its code writes, and its instance id; always 1.',
      labelNames: ['version', 'commit', 'schema_version', 'instance_id'] as const,
      registers,
    });
    build.set(
      {
        version: options.build.version,
        commit: options.build.commit,
        schema_version: String(options.build.schemaVersion),
        instance_id: options.build.instanceId,
      },
      1,
    );
  }

  const observer: RequestObserver = {
    answered(request: AnsweredRequest) {
      duration.record([request.api, request.operation, statusLabel(request.status)], request.seconds);
      const reason = request.problem?.reason;
      if (reason === undefined) return;
      (request.problem?.type === 'urn:problem-type:unauthorized' ? authenticationFailures : refusals).labels(request.api, reason).inc();
    },
  };

  return { registry, observer, contentType: registry.contentType, metrics: () => registry.metrics() };
}

/** HTTP statuses as label values, made once each rather than on every request. */
const STATUS_LABELS = Array.from({ length: 600 }, (_, status) => String(status));
const statusLabel = (status: number): string => STATUS_LABELS[status] ?? String(status);

/** The PostgreSQL pool's gauges, after `db.client.connection.*`, read from the store at each scrape. */
function poolGauges(registry: Registry, storeStats: () => StoreStats | undefined): void {
  const registers = [registry];
  new Gauge({
    name: 'db_client_connection_count',
    help: 'PostgreSQL connections of this instance, by state: idle or used.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const pool = storeStats()?.pool;
      if (!pool) return;
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'used' }, pool.total - pool.idle);
    },
  });
  new Gauge({
    name: 'db_client_connection_max',
    help: 'The most PostgreSQL connections this instance may open (DATABASE_POOL_SIZE).',
    registers,
    collect() {
      const pool = storeStats()?.pool;
      if (pool) this.set(pool.max);
    },
  });
  new Gauge({
    name: 'db_client_connection_pending_requests',
    help: 'Queries waiting for a PostgreSQL connection of this instance.',
    registers,
    collect() {
      const pool = storeStats()?.pool;
      if (pool) this.set(pool.waiting);
    },
  });
}

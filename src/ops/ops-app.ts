import { Hono } from 'hono';
import type { BuildInfo } from './build-info.js';
import type { Readiness } from './readiness.js';

/** What `/metrics` serves: Prometheus' text format (prom-client's `Registry`). */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/**
 * The ops app, for probes and scrapers only, on its own listener (`OPS_PORT`), never on the public or web one:
 * `GET /livez` is 200 while the process serves; `GET /readyz` is 200 when every readiness check passes, else
 * 503, each with the checks' verdicts as JSON; `GET /metrics` is Prometheus' text format when metrics are on.
 * Nothing here takes a credential, so nothing here may say anything secret.
 */
export function createOpsApp(options: { readiness: Readiness; metrics?: MetricsSource | undefined; build?: BuildInfo | undefined }): Hono {
  const { readiness, metrics, build } = options;
  // Which release answered, so a probe's body tells instances of an upgrade apart (build-info.ts).
  const release = build && { version: build.version, commit: build.commit, schemaVersion: build.schemaVersion, instanceId: build.instanceId };
  const app = new Hono();
  app.get('/livez', () => new Response(JSON.stringify({ status: 'live' }), { headers: JSON_HEADERS }));
  app.get('/readyz', async () => {
    const report = await readiness.report();
    return new Response(JSON.stringify({ status: report.ready ? 'ready' : 'not ready', checks: report.checks, ...(release && { release }) }), {
      status: report.ready ? 200 : 503,
      headers: JSON_HEADERS,
    });
  });
  if (metrics)
    app.get('/metrics', async () => new Response(await metrics.metrics(), { headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' } }));
  app.notFound(
    (c) =>
      new Response(JSON.stringify({ status: 'not found', paths: ['/livez', '/readyz', ...(metrics ? ['/metrics'] : [])], path: c.req.path }), {
        status: 404,
        headers: JSON_HEADERS,
      }),
  );
  app.onError(
    (error) =>
      new Response(JSON.stringify({ status: 'error', reason: error instanceof Error ? error.message : String(error) }), { status: 500, headers: JSON_HEADERS }),
  );
  return app;
}

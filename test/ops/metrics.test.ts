import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestApp } from '../helpers/app.js';
import { createTestWebApp } from '../helpers/web-app.js';

/** The value of one sample of the scrape, by its metric name and labels as written (`{api="main",...}`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the metrics', () => {
  it('time each request of the public API by operation and status, and count refusals and authentication failures by reason', async () => {
    const store = await openStore({ databasePath: ':memory:' });
    const metrics = createMetrics({ storeStats: () => store.stats?.(), processMetrics: false });
    const t = await createTestApp({ telemetry: { observer: metrics.observer }, limits: { rateLimit: { requests: 1, windowSeconds: 60 } } });
    const { key } = await t.addUser('ada');
    expect((await t.send('POST', '/', { key, body: {} })).status).toBe(200);
    expect((await t.send('POST', '/', { key, body: {} })).status).toBe(429);
    expect((await t.send('POST', '/', { body: {} })).status).toBe(401);
    expect((await t.send('POST', '/', { key: `tka_${'a'.repeat(38)}`, body: {} })).status).toBe(401);
    expect((await t.send('GET', '/nowhere')).status).toBe(404);

    const text = await metrics.metrics();
    expect(metrics.contentType).toMatch(/^text\/plain/);
    expect(sample(text, 'http_server_request_duration_seconds_count{api="main",operation="listOwnItems",http_response_status_code="200"}')).toBe(1);
    expect(sample(text, 'http_server_request_duration_seconds_count{api="main",operation="listOwnItems",http_response_status_code="429"}')).toBe(1);
    expect(sample(text, 'http_server_request_duration_seconds_count{api="main",operation="listOwnItems",http_response_status_code="401"}')).toBe(2);
    expect(sample(text, 'http_server_request_duration_seconds_count{api="main",operation="_other",http_response_status_code="404"}')).toBe(1);
    expect(sample(text, 'http_server_refusals_total{api="main",reason="rate-limit"}')).toBe(1);
    expect(sample(text, 'http_server_authentication_failures_total{api="main",reason="missing-credential"}')).toBe(1);
    expect(sample(text, 'http_server_authentication_failures_total{api="main",reason="malformed-key"}')).toBe(1);
    // Never a user, a key or an address as a label.
    expect(text).not.toMatch(/="(usr_|key_|tka_)|127\.0\.0\.1|in-process/);
    await store.close();
    await t.store.close();
  });

  it('count the web application under api="account", with its own reasons', async () => {
    const store = await openStore({ databasePath: ':memory:' });
    const metrics = createMetrics({ storeStats: () => store.stats?.(), processMetrics: false });
    const t = await createTestWebApp({ telemetry: { observer: metrics.observer } });
    expect((await t.send('GET', '/api/session')).status).toBe(401);
    expect((await t.send('POST', '/api/session', { body: { name: 'nobody', password: 'x' }, headers: { Origin: 'https://elsewhere.example' } })).status).toBe(
      403,
    );
    const text = await metrics.metrics();
    expect(sample(text, 'http_server_authentication_failures_total{api="account",reason="no-session"}')).toBe(1);
    expect(sample(text, 'http_server_refusals_total{api="account",reason="cross-origin"}')).toBe(1);
    expect(sample(text, 'http_server_request_duration_seconds_count{api="account",operation="getSession",http_response_status_code="401"}')).toBe(1);
    await store.close();
    await t.store.close();
  });

  it("read the key cache's hits and misses from the store at each scrape, and the process metrics when asked", async () => {
    const t = await createTestApp();
    const metrics = createMetrics({ storeStats: () => t.store.stats?.() });
    const { key } = await t.addUser('ada');
    await t.send('POST', '/', { key, body: {} });
    await t.send('POST', '/', { key, body: {} });
    const text = await metrics.metrics();
    expect(sample(text, 'key_cache_lookups_total{result="miss"}')).toBe(1);
    expect(sample(text, 'key_cache_lookups_total{result="hit"}')).toBe(1);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    // No pool (SQLite): no pool gauges.
    expect(text).not.toMatch(/^db_client/m);
    await t.store.close();
  });
});

/**
 * Prometheus' own naming lint (`promtool check metrics`, Debian's prometheus package) on what `/metrics` serves,
 * on SQLite and on PostgreSQL (whose pool adds its gauges), once requests have made the labelled series appear.
 * The names kept against the lint are listed here with their reason, and docs/observability.md says the same;
 * any other finding fails. Slow: it starts two servers and runs promtool.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../../tools/process/run-command.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { freshDatabase } from '../helpers/postgres.js';

/** Names the lint finds fault with, kept on purpose. */
const KEPT: Readonly<Record<string, string>> = {
  db_client_connection_count: "OpenTelemetry's db.client.connection.count: dashboards made for its names find it",
  nodejs_active_handles_total: "prom-client's own gauge, named so in every Node service",
  nodejs_active_requests_total: "prom-client's own gauge, named so in every Node service",
  nodejs_active_resources_total: "prom-client's own gauge, named so in every Node service",
};

const servers: ServerProcess[] = [];
const scrapes: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  for (const file of scrapes) rmSync(file, { force: true });
});

async function lint(env: Record<string, string>, name: string): Promise<string[]> {
  const server = await startServer({ env: { ...env, OPS_PORT: '0' } });
  servers.push(server);
  // Requests the metrics count: a refusal without a key, a page, a probe; then the labelled series exist.
  for (const url of [`${server.url}/`, `${server.url}/shared`, `${server.webUrl}/`, `${server.webUrl}/api/session`]) await (await fetch(url)).arrayBuffer();
  const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
  expect(text).toMatch(/^http_server_request_duration_seconds_count\{/m);
  const file = join(tmpdir(), `metrics-${name}-${process.pid}.txt`);
  writeFileSync(file, text);
  scrapes.push(file);
  const result = await runCommand(['bash', '-c', 'promtool check metrics < "$0"', file]);
  expect(result.signal, result.stderr).toBeNull();
  // promtool exits 3 on lint findings, one per line: `<name> <what is wrong>`.
  const findings = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
  if (result.code !== 0) expect(findings.length, `promtool exited ${result.code} without findings`).toBeGreaterThan(0);
  return findings;
}

describe('promtool check metrics on /metrics', () => {
  it.each([
    ['SQLite', async () => ({ DATABASE_PATH: ':memory:' })],
    ['PostgreSQL', async () => ({ DATABASE_URL: await freshDatabase('metrics_lint') })],
  ])('finds nothing on %s but the names kept on purpose', { timeout: 90_000 }, async (name, env) => {
    const findings = await lint(await env(), name);
    const unexpected = findings.filter((line) => !Object.hasOwn(KEPT, line.split(' ')[0] ?? ''));
    expect(unexpected, 'a metric name Prometheus finds fault with: rename it, or keep it in KEPT with the reason and say so in docs/observability.md').toEqual(
      [],
    );
    if (name === 'PostgreSQL') expect(findings.join('\n')).toMatch(/^db_client_connection_count /m);
  });

  it('names each kept name, with its reason, in docs/observability.md', () => {
    const page = readFileSync(join(projectRoot, 'docs/observability.md'), 'utf8');
    for (const kept of Object.keys(KEPT)) expect(page, kept).toContain(`\`${kept}\``);
  });
});

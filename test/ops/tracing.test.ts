/**
 * Tracing end to end in-process: the public API with the tracing on, exporting to a tiny OTLP/HTTP receiver on
 * 127.0.0.1 started here. A request that sends a W3C `traceparent` is continued: its server span and the
 * database spans under it carry the caller's trace id, and the request line carries it too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import type { ExportFailureWarning } from '../../src/ops/export-failures.js';
import { startTracing, type Tracing } from '../../src/ops/tracing.js';
import { createApp } from '../../src/server/app.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { requestContract } from '../helpers/contract.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}

let receiver: Server;
/** The status the receiver answers: a collector that refuses (404 is not retried by the exporter) makes exports fail. */
let receiverStatus = 200;
const exportFailures: ExportFailureWarning[] = [];
const spans: OtlpSpan[] = [];
const contentTypes: string[] = [];
let tracing: Tracing;
let store: Store;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      contentTypes.push(`${request.url} ${request.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(receiverStatus, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  tracing = startTracing({
    endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    serviceName: 'test',
    scheduledDelayMillis: 50,
    onExportFailure: (warning) => exportFailures.push(warning),
  });
  store = await openStore({ databasePath: ':memory:' }, { wrapEngine: tracing.traceStore });
});

afterAll(async () => {
  await store?.close();
  await tracing?.shutdown(1_000);
  receiver?.close();
});

/** Waits up to 5 s for the receiver to have what `done` looks for (spans come in batches, every 50 ms here). */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

const attribute = (span: OtlpSpan | undefined, key: string) => {
  const value = span?.attributes.find((candidate) => candidate.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

describe('tracing', () => {
  it('continues the caller’s traceparent: a server span per request and a client span per database call, all in its trace', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = createApp({
      store,
      contract: requestContract,
      logger: { info: (fields) => lines.push(fields as Record<string, unknown>), error: () => undefined },
      telemetry: { tracing: tracing.middleware },
    });
    const at = new Date().toISOString();
    const user = await store.createUser('ada', at);
    const { key, digest, hint } = generateApiKey();
    await store.createKey(user.id, digest, hint, at);

    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpanId = '00f067aa0ba902b7';
    const response = await app.request('/', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', traceparent: `00-${traceId}-${parentSpanId}-01` },
      body: '{}',
    });
    expect(response.status).toBe(200);

    await until(() => spans.some((span) => span.kind === 2 && span.traceId === traceId));
    const server = spans.find((span) => span.kind === 2 && span.traceId === traceId);
    expect(server, JSON.stringify(spans)).toBeDefined();
    expect(server?.parentSpanId).toBe(parentSpanId);
    expect(server?.name).toBe('POST /');
    expect(attribute(server, 'http.request.method')).toBe('POST');
    expect(attribute(server, 'http.route')).toBe('/');
    expect(attribute(server, 'http.response.status_code')).toBe(200);
    expect(attribute(server, 'app.operation.id')).toBe('listOwnItems');

    const database = spans.filter((span) => span.kind === 3 && span.traceId === traceId);
    expect(database.map((span) => span.name)).toContain('findKeyByDigest');
    for (const span of database) {
      expect(span.parentSpanId).toBe(server?.spanId);
      expect(attribute(span, 'db.system.name')).toBe('sqlite');
    }
    expect(contentTypes[0]).toBe('/v1/traces application/json');
    // The request line and the trace find each other.
    expect(lines.find((line) => 'requestId' in line)).toMatchObject({ traceId, status: 200 });
  });

  it('starts a trace of its own for a request without traceparent', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = createApp({
      store,
      contract: requestContract,
      logger: { info: (fields) => lines.push(fields as Record<string, unknown>), error: () => undefined },
      telemetry: { tracing: tracing.middleware },
    });
    expect((await app.request('/', { method: 'POST', body: '{}' })).status).toBe(401);
    expect(lines[0]?.['traceId']).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[0]?.['traceId']).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  // The request line scrubs a key sent in the path (a client that put its key in the base URL); the span goes to
  // another system, often kept longer and read by more people, so it must not carry what the log may not.
  it('never puts a key sent in the path into the span, as the request line does not', async () => {
    const app = createApp({
      store,
      contract: requestContract,
      logger: { info: () => undefined, error: () => undefined },
      telemetry: { tracing: tracing.middleware },
    });
    const { key } = generateApiKey();
    const traceId = '5bf92f3577b34da6a3ce929d0e0e4737';
    // A path no operation of the spec can have (a new `/items/{id}` must not turn this 404 into a 405).
    const unknown = '/no-operation-has-this-path';
    expect(
      [...requestContract.methodsByPath.keys()].some((path) => path.startsWith(unknown)),
      `the spec now has ${unknown}: pick another path here`,
    ).toBe(false);
    const response = await app.request(`${unknown}/${key}`, { method: 'POST', headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(response.status).toBe(404);
    await until(() => spans.some((span) => span.kind === 2 && span.traceId === traceId));
    const server = spans.find((span) => span.kind === 2 && span.traceId === traceId);
    expect(server, JSON.stringify(spans)).toBeDefined();
    expect(JSON.stringify(server)).not.toContain(key);
    expect(attribute(server, 'url.path')).toBe(`${unknown}/tka_[REDACTED]`);
  });

  // OpenTelemetry alone says nothing when exports fail (a mistyped endpoint, a collector away): the operator is told.
  it('tells of failed exports, once at first and then at most once a minute, and goes on serving', async () => {
    const app = createApp({
      store,
      contract: requestContract,
      logger: { info: () => undefined, error: () => undefined },
      telemetry: { tracing: tracing.middleware },
    });
    receiverStatus = 404;
    try {
      for (let request = 0; request < 3; request++) {
        expect((await app.request('/', { method: 'POST', body: '{}' })).status).toBe(401);
        const before = contentTypes.length;
        await until(() => contentTypes.length > before);
      }
    } finally {
      receiverStatus = 200;
    }
    expect(contentTypes.length).toBeGreaterThanOrEqual(3);
    // Three batches refused within the minute: one warning, for the first.
    expect(exportFailures).toEqual([{ reason: expect.stringMatching(/Not Found|404/), failures: 1 }]);
  });
});

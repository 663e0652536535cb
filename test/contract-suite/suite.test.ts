import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { deref, loadSpec } from '../../src/contract/spec.js';
import { KNOWN_DIFFERENCES } from '../../src/contract-suite/known-differences.js';
import { formatReport } from '../../src/contract-suite/report.js';
import { disagreements, runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { makeKey } from '../../tools/process/make-key.js';
import { sharedService } from '../helpers/services.js';
import { LIMIT, SORT } from '../helpers/spec-fixture.js';

/** The report's failures, readable in an assertion message. */
function failures(report: SuiteReport): string[] {
  return report.results
    .filter((result) => result.outcome === 'fail')
    .map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}\n  ${result.curl ?? ''}`);
}

// Started once for the run by test/global-setup.ts, which also checks that stopping them leaves nothing running.
const mock = await sharedService('mock');
const server = await sharedService('server');
// The demo user the server seeds on a fresh database has items and shares, so walks span pages.
const demoKey = server.demoKey;
let mockReport: SuiteReport;
let implementationReport: SuiteReport;

beforeAll(async () => {
  [mockReport, implementationReport] = await Promise.all([
    runContractSuite({ baseUrl: mock.url, token: 'any-token-will-do', target: 'prism' }),
    runContractSuite({ baseUrl: server.url, token: demoKey }),
  ]);
}, 120_000);

describe('the contract suite', () => {
  it('passes against the implementation, started as a real process with a fresh key', () => {
    expect(failures(implementationReport), formatReport(implementationReport)).toEqual([]);
    expect(implementationReport.differencesApplied).toEqual([]);
    // The server of the tests has the seeded demo data; a case it skips needs data it lacks (a read of an id no answer carries).
    const skipped = implementationReport.results.filter((result) => result.outcome === 'skip').map((result) => `${result.id}: ${result.note ?? ''}`);
    expect(skipped, 'skipped against the implementation: give each what it needs (seeded data, or an answer that carries its id)').toEqual([]);
  });

  it('passes against the Prism mock with only the differences listed in known-differences.ts', () => {
    expect(failures(mockReport), formatReport(mockReport)).toEqual([]);
  });

  it('finds that the mock and the implementation answer every case with the same status, except where a listed difference says why', () => {
    expect(disagreements(mockReport, implementationReport)).toEqual([]);
    expect(mockReport.results.map((result) => result.id)).toEqual(implementationReport.results.map((result) => result.id));
  });

  it('needs every listed difference: each one is observed against the mock', () => {
    // A difference about cases this spec has none of (an unknown id needs a path parameter) is observed in prism-fixture.slow.test.ts.
    const derived = new Set(mockReport.results.map((result) => result.family));
    const unused = KNOWN_DIFFERENCES.filter(
      (difference) =>
        difference.target === 'prism' && difference.families.some((family) => derived.has(family)) && !mockReport.differencesApplied.includes(difference.id),
    ).map((difference) => difference.id);
    expect(unused, 'a known difference that never occurs should be deleted').toEqual([]);
  });

  it('covers every operation: each documented status is provoked or listed as not provoked, each field has a positive case', () => {
    const spec = loadSpec();
    for (const operation of readOperations(spec)) {
      const summary = implementationReport.operations.find((entry) => entry.operationId === operation.operationId);
      const results = implementationReport.results.filter((result) => result.operationId === operation.operationId);
      expect(summary?.cases, operation.operationId).toBe(results.length);
      const provoked = new Set(results.map((result) => String(result.expectedStatus)));
      for (const status of Object.keys(operation.responses)) {
        expect(provoked.has(status) || summary?.notProvoked.some((entry) => entry.status === status), `${operation.operationId} ${status}`).toBe(true);
      }
      const fields = [...operation.parameters.map((parameter) => `${parameter.in}/${parameter.name}`)];
      const body = operation.requestBody?.content['application/json']?.schema;
      if (body) for (const name of Object.keys((deref(spec, body)['properties'] as object | undefined) ?? {})) fields.push(`body/${name}`);
      for (const field of fields)
        expect(
          results.map((result) => result.id),
          operation.operationId,
        ).toContain(`${operation.operationId} positive field-values ${field}`);
    }
  });

  it('walks real pages against the implementation (the demo data spans several)', () => {
    const walk = implementationReport.results.find((result) => result.id === 'listOwnItems positive pagination');
    expect(walk?.note).toMatch(new RegExp(`^walked ([2-9]|\\d\\d+) pages of limit \\d+, \\d+ items; the same as one page of limit ${LIMIT.maximum}$`));
  });

  it("never shows the caller's key in a report", () => {
    const text = JSON.stringify(implementationReport) + formatReport(implementationReport);
    expect(text).not.toContain(demoKey);
    expect(text).toContain("-H 'Authorization: Bearer $API_KEY'");
  });
});

/**
 * A proxy in front of the implementation that breaks one thing on purpose, to show
 * the suite catches it with a clear message.
 */
async function brokenProxy(
  upstream: string,
  breakResponse: (status: number, headers: Headers, body: string) => { headers: Headers; body: string },
): Promise<{ url: string; close: () => Promise<void> }> {
  const proxy: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
    const answer = await fetch(upstream + (request.url ?? '/'), { method: request.method ?? 'GET', headers, ...(body.length > 0 && { body }) });
    const broken = breakResponse(answer.status, new Headers(answer.headers), await answer.text());
    broken.headers.delete('content-length');
    broken.headers.delete('content-encoding');
    response.writeHead(answer.status, Object.fromEntries(broken.headers));
    response.end(broken.body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => proxy.close(() => resolve())) };
}

describe('the contract suite against a broken implementation', () => {
  it.each([
    {
      breakage: 'a field the spec does not have',
      breakResponse: (status: number, headers: Headers, body: string) => ({
        headers,
        body: status === 200 ? JSON.stringify({ ...(JSON.parse(body) as object), total: 12 }) : body,
      }),
      want: { id: 'listOwnItems positive example sample', message: 'body/total is not a known field' },
    },
    {
      breakage: 'no WWW-Authenticate on 401',
      breakResponse: (_status: number, headers: Headers, body: string) => {
        headers.delete('www-authenticate');
        return { headers, body };
      },
      want: { id: 'listSharedItems negative no-authorization', message: 'required header WWW-Authenticate is missing' },
    },
    {
      breakage: 'items in the wrong order',
      breakResponse: (status: number, headers: Headers, body: string) => {
        const page = status === 200 ? (JSON.parse(body) as { items?: unknown }) : {};
        if (!Array.isArray(page.items)) return { headers, body };
        return { headers, body: JSON.stringify({ ...page, items: page.items.reverse() }) };
      },
      // Every page reversed, so each value of the spec's Sort finds its items out of order: the last one, for instance.
      want: { id: 'listOwnItems positive field-values body/sort', message: `items out of order for sort=${SORT.values.at(-1)}` },
    },
  ])('reports $breakage with a clear message and the request', { concurrent: true }, async ({ breakResponse, want }) => {
    const proxy = await brokenProxy(server.url, breakResponse);
    try {
      const { key } = await makeKey(server.databasePath, 'demo');
      const report = await runContractSuite({ baseUrl: proxy.url, token: key });
      const result = report.results.find((entry) => entry.id === want.id);
      expect(result?.outcome).toBe('fail');
      expect(result?.findings.map((finding) => finding.message).join('\n')).toContain(want.message);
      expect(result?.curl).toMatch(/^curl -i -X (GET|POST) 'http:\/\/127\.0\.0\.1:\d+\/(shared)?/);
      expect(formatReport(report)).toMatch(/FAILED: \d+ checks? found a contract violation/);
    } finally {
      await proxy.close();
    }
  });
});

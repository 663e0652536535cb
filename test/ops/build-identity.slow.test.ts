/**
 * Releases told apart (issue 32 point 4): one real server process names the same version and commit in its
 * greeting, a log line, `/readyz`, the `build_info` metric and the resource of an exported span, and its
 * spans carry what the operator sets in `OTEL_RESOURCE_ATTRIBUTES`. Slow: a real process and an OTLP receiver.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { sourceCommit } from '../../src/ops/build-info.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpExport {
  resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: unknown[] }> }>;
}

let receiver: Server;
const exports: OtlpExport[] = [];
let server: ServerProcess;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  server = await startServer({
    databasePath: ':memory:',
    env: {
      OPS_PORT: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging',
    },
  });
}, 40_000);

afterAll(async () => {
  await server?.stop();
  receiver?.close();
});

describe('one release, named alike everywhere', () => {
  it('in the greeting, a log line, /readyz, build_info and the spans’ resource', async () => {
    const version = (JSON.parse(readFileSync(`${projectRoot}/package.json`, 'utf8')) as { version: string }).version;
    const commit = sourceCommit(projectRoot);
    expect(commit, 'this test runs in a git checkout').toMatch(/^[0-9a-f]{40}$/);

    expect(server.stderr()).toContain(`Bearer List API ${version} (commit ${commit?.slice(0, 12)}, schema `);
    const listening = server
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line['msg'] === 'listening');
    expect(listening).toMatchObject({ version, commit });
    const instanceId = listening?.['instanceId'] as string;
    const schemaVersion = listening?.['schemaVersion'] as number;

    const ready = (await (await fetch(`${server.opsUrl}/readyz`)).json()) as { release: unknown };
    expect(ready.release).toEqual({ version, commit, schemaVersion, instanceId });

    const metrics = await (await fetch(`${server.opsUrl}/metrics`)).text();
    expect(metrics).toContain(`build_info{version="${version}",commit="${commit}",schema_version="${schemaVersion}",instance_id="${instanceId}"} 1`);

    await fetch(`${server.url}/shared`, { headers: { authorization: 'Bearer tka_unknown' } });
    const deadline = Date.now() + 5_000;
    while (exports.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const resource = Object.fromEntries(
      (exports[0]?.resourceSpans[0]?.resource.attributes ?? []).map(({ key, value }) => [key, value.stringValue ?? Number(value.intValue)]),
    );
    expect(resource).toMatchObject({
      'service.name': 'bearer-list-api',
      'service.version': version,
      'service.instance.id': instanceId,
      'app.commit': commit,
      'app.schema_version': schemaVersion,
      'deployment.environment.name': 'staging',
    });
  });
});

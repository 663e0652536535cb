/**
 * vitest's global setup for both projects: a small broker on loopback that starts each shared
 * process (the Prism mock, the server on the demo data, a throwaway PostgreSQL;
 * `test/services/shared-services.ts`) the first time a test file asks for it, once per run, and stops
 * them after the run. A file asks with `await sharedService('server')` (`test/helpers/services.ts`);
 * a run of files that need none of them (`npm run test:contract`, one file in watch mode) starts none,
 * and in the whole run they start while the files that need nothing already run.
 * Tests whose point is a process's own life (first run, shutdown, exit codes, its environment) start their own.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { type ServiceName, ServiceStarter } from './services/shared-services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The broker's URL: `GET <url>/<service>` starts the service if need be and answers where it is. */
    services: string;
  }
}

const SERVICES: readonly ServiceName[] = ['mock', 'server', 'postgres'];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const starter = new ServiceStarter();
  const broker = createServer((request, response) => {
    const name = request.url?.slice(1) as ServiceName;
    if (request.method !== 'GET' || !SERVICES.includes(name)) {
      response.writeHead(404).end(`no such service; ask for one of ${SERVICES.join(', ')}`);
      return;
    }
    starter.get(name).then(
      (service) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(service)),
      (error: unknown) =>
        response.writeHead(500, { 'content-type': 'text/plain' }).end(error instanceof Error ? (error.stack ?? error.message) : String(error)),
    );
  });
  // A cold PostgreSQL or server start under a loaded run can take longer than Node's default request timeouts allow.
  broker.requestTimeout = 0;
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('services', `http://127.0.0.1:${(broker.address() as AddressInfo).port}`);
  return async () => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await starter.stop();
  };
}

/**
 * vitest's global setup for the default project: one Prism mock and one server, started once per
 * run, for the test files that only need something that follows the contract to talk to (the
 * contract suite, the typed client, the wire-level bad input). Tests read where they are with
 * `inject('mock')` and `inject('server')`. Tests whose point is a process's own life (first run,
 * shutdown, exit codes, its environment) start their own.
 */
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { makeKey } from '../src/process/make-key.js';
import type { LaunchedProcess } from '../src/process/launch.js';
import { startMock } from '../src/process/mock.js';
import { isRunning } from '../src/process/process-group.js';
import { scratchDatabase } from '../src/process/scratch-database.js';
import { startServer } from '../src/process/server.js';
import { DEMO_USER, seedDemoDatabase } from '../src/store/demo-data.js';

/**
 * The shared server holds itself to the contract on every answer (RESPONSE_VALIDATION=strict), and
 * many files send it refused credentials from one address, so its failed-authentication budgets are
 * out of reach here (test/robustness/rate-limit.test.ts tests them in-process).
 */
const SHARED_SERVER_ENV = { LOG_LEVEL: 'warn', RESPONSE_VALIDATION: 'strict', FAILED_AUTH_PER_ADDRESS: '1000000' };

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Prism mock, as `npm run mock` runs it. */
    mock: { url: string; pid: number };
    /**
     * The server, as `npm start` runs it, on a fresh database with the demo data (`npm run seed`:
     * the demo user's items and shares), at LOG_LEVEL=warn. Its output goes to two files, which any test can read.
     */
    server: {
      url: string;
      port: number;
      pid: number;
      databasePath: string;
      /**
       * A fresh key of the demo user, made with the keys CLI. Its quota (600 a minute) is shared by
       * every file that uses it, which together send it a few hundred requests at most. A test that
       * sends many makes its own key with `makeKey(server.databasePath, 'demo')`.
       */
      demoKey: string;
      stdoutFile: string;
      stderrFile: string;
    };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const database = scratchDatabase('shared-server-');
  const output = { stdoutFile: join(database.dir, 'stdout.log'), stderrFile: join(database.dir, 'stderr.log') };
  const started: LaunchedProcess[] = [];
  const track = <T extends LaunchedProcess>(process: T): T => (started.push(process), process);

  const teardown = async () => {
    await Promise.all(started.map((process) => process.stop()));
    database.remove();
    // Stopping a group must leave nothing behind (Prism included).
    const left = started.filter((process) => isRunning(process.pid, { group: true }));
    if (left.length > 0) throw new Error(`still running after the tests: ${left.map((process) => process.commandLine).join(', ')}`);
  };

  const [mock, server] = await Promise.allSettled([
    startMock().then(track),
    // Seeded in-process (test/cli/seed.test.ts runs `npm run seed` itself); the key is made with the keys CLI while the server starts, and Prism too.
    seedDemoDatabase({ databasePath: database.path }).then(() =>
      Promise.all([startServer({ databasePath: database.path, env: SHARED_SERVER_ENV, output }).then(track), makeKey(database.path, DEMO_USER)]).then(
        ([server, { key }]) => ({ server, demoKey: key }),
      ),
    ),
  ]);
  if (mock.status === 'rejected' || server.status === 'rejected') {
    await teardown();
    throw mock.status === 'rejected' ? mock.reason : (server as PromiseRejectedResult).reason;
  }
  project.provide('mock', { url: mock.value.url, pid: mock.value.pid });
  const { url, port, pid } = server.value.server;
  project.provide('server', { url, port, pid, databasePath: database.path, demoKey: server.value.demoKey, ...output });
  return teardown;
}

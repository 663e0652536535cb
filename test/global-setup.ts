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
import { startMock, type MockProcess } from '../src/process/mock.js';
import { isRunning } from '../src/process/process-group.js';
import { scratchDatabase } from '../src/process/scratch-database.js';
import { startServer, type ServerProcess } from '../src/process/server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Prism mock, as `npm run mock` runs it. */
    mock: { url: string; pid: number };
    /**
     * The server, as `npm start` runs it, on a fresh database (so with the demo user's items and
     * shares), at LOG_LEVEL=warn. Its output goes to two files, which any test can read.
     */
    server: {
      url: string;
      port: number;
      pid: number;
      databasePath: string;
      /**
       * A fresh key of the demo user, made with the keys CLI. Its quota (600 a minute) is shared by
       * every file that uses it: about 250 requests in all today. A test that sends many more makes
       * its own key with `makeKey(server.databasePath, 'demo')`.
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
  const [mock, server] = await Promise.allSettled([startMock(), startServer({ databasePath: database.path, env: { LOG_LEVEL: 'warn' }, output })]);

  const teardown = async () => {
    const running = [mock, server].flatMap((started) => (started.status === 'fulfilled' ? [started.value] : []));
    await Promise.all(running.map((process) => process.stop()));
    database.remove();
    // Stopping a group must leave nothing behind (Prism included).
    const left = running.filter((process) => isRunning(process.pid, { group: true }));
    if (left.length > 0) throw new Error(`still running after the tests: ${left.map((process) => process.commandLine).join(', ')}`);
  };

  try {
    const started = { mock: fulfilled(mock), server: fulfilled(server) };
    const { key } = await makeKey(database.path, 'demo');
    project.provide('mock', { url: started.mock.url, pid: started.mock.pid });
    project.provide('server', { url: started.server.url, port: started.server.port, pid: started.server.pid, databasePath: database.path, demoKey: key, ...output });
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

function fulfilled<T extends MockProcess | ServerProcess>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

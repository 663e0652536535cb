/**
 * The processes test files share, each started at most once per run and only when a file asks for it:
 * the Prism mock, the server (on the demo data), and a throwaway PostgreSQL. Asked for through
 * `sharedService(name)` (`test/helpers/services.ts`), which reaches the run's broker
 * (`test/global-setup.ts`); a run of files that need none of them starts none.
 */
import { join } from 'node:path';
import { DEMO_USER, seedDemoDatabase } from '../../src/store/demo-data.js';
import { SCRATCH_SETTINGS, startLocalPostgres } from '../../tools/cluster/local-postgres.js';
import type { LaunchedProcess } from '../../tools/process/launch.js';
import { makeKey } from '../../tools/process/make-key.js';
import { startMock } from '../../tools/process/mock.js';
import { isRunning } from '../../tools/process/process-group.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { startServer } from '../../tools/process/server.js';
import { withClient } from '../helpers/postgres.js';

/**
 * The shared server holds itself to the contract on every answer (RESPONSE_VALIDATION=strict), and
 * many files send it refused credentials from one address, so its failed-authentication budgets are
 * out of reach here (test/robustness/rate-limit.test.ts tests them in-process).
 */
const SHARED_SERVER_ENV = { LOG_LEVEL: 'warn', RESPONSE_VALIDATION: 'strict', FAILED_AUTH_PER_ADDRESS: '1000000' };

export interface SharedServices {
  /** The Prism mock, as `npm run mock` runs it. */
  mock: { url: string; pid: number };
  /**
   * The server, as `npm start` runs it, on a fresh database with the demo data (`npm run seed`:
   * the demo user's items and shares), at LOG_LEVEL=warn. Its output goes to two files, which any test can read.
   */
  server: {
    url: string;
    port: number;
    /** The web application's root (the pages, and the account API under `/api`). */
    webUrl: string;
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
  /**
   * One PostgreSQL for the run (Debian's binaries, `initdb` into a temporary directory, `pg_ctl start` on a
   * free loopback port; `tools/cluster/local-postgres.ts`), as a superuser URL; each file makes its own
   * databases on it, named after `run`. `TEST_DATABASE_URL` points the tests at an existing server instead
   * (a superuser URL: tests create databases). Without either, the run fails: the PostgreSQL tests are never skipped.
   */
  postgres: { url: string; run: string };
}

export type ServiceName = keyof SharedServices;

/** Starts each service on first demand, and stops whatever was started. */
export class ServiceStarter {
  readonly #started: LaunchedProcess[] = [];
  readonly #cleanups: Array<() => Promise<void> | void> = [];
  readonly #starting = new Map<ServiceName, Promise<unknown>>();

  /** The service, started now if no file has asked for it yet; every later ask gets the same one (or the same failure). */
  get<Name extends ServiceName>(name: Name): Promise<SharedServices[Name]> {
    let starting = this.#starting.get(name);
    if (!starting) {
      starting = this.#start(name);
      this.#starting.set(name, starting);
    }
    return starting as Promise<SharedServices[Name]>;
  }

  async stop(): Promise<void> {
    await Promise.all(this.#started.map((process) => process.stop()));
    for (const cleanup of this.#cleanups.reverse()) await cleanup();
    // Stopping a group must leave nothing behind (Prism included).
    const left = this.#started.filter((process) => isRunning(process.pid, { group: true }));
    if (left.length > 0) throw new Error(`still running after the tests: ${left.map((process) => process.commandLine).join(', ')}`);
  }

  #start(name: ServiceName): Promise<unknown> {
    switch (name) {
      case 'mock':
        return this.#mock();
      case 'server':
        return this.#server();
      case 'postgres':
        return this.#postgres();
    }
  }

  async #mock(): Promise<SharedServices['mock']> {
    const mock = this.#track(await startMock());
    return { url: mock.url, pid: mock.pid };
  }

  async #server(): Promise<SharedServices['server']> {
    const database = scratchDatabase('shared-server-');
    this.#cleanups.push(() => database.remove());
    const output = { stdoutFile: join(database.dir, 'stdout.log'), stderrFile: join(database.dir, 'stderr.log') };
    // Seeded in-process (test/cli/seed.test.ts runs `npm run seed` itself); the key is made with the keys CLI while the server starts.
    await seedDemoDatabase({ databasePath: database.path });
    const [server, { key }] = await Promise.all([
      startServer({ databasePath: database.path, env: SHARED_SERVER_ENV, output }).then((started) => this.#track(started)),
      makeKey(database.path, DEMO_USER),
    ]);
    return { url: server.url, port: server.port, webUrl: server.webUrl, pid: server.pid, databasePath: database.path, demoKey: key, ...output };
  }

  async #postgres(): Promise<SharedServices['postgres']> {
    const run = `t${Date.now().toString(36)}${process.pid.toString(36)}`;
    const given = process.env['TEST_DATABASE_URL'];
    if (given) {
      this.#cleanups.push(() => dropRunDatabases(given, run));
      return { url: given, run };
    }
    const server = await startLocalPostgres({ prefix: 'vitest-pg-', settings: SCRATCH_SETTINGS, stopOnSignals: true });
    this.#cleanups.push(() => server.stop());
    return { url: server.url, run };
  }

  #track<T extends LaunchedProcess>(process: T): T {
    this.#started.push(process);
    return process;
  }
}

async function dropRunDatabases(url: string, run: string): Promise<void> {
  await withClient(url, async (client) => {
    const { rows } = await client.query<{ name: string }>('SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1)', [`${run}_`]);
    for (const { name } of rows) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

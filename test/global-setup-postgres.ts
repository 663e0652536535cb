/**
 * Starts one throwaway PostgreSQL for the whole test run (Debian's binaries, `initdb` into a temporary
 * directory, `pg_ctl start` on a free loopback port; see `tools/cluster/local-postgres.ts`) and hands its
 * URL to the tests as `inject('postgresUrl')`; each test file makes its own databases on it.
 * `TEST_DATABASE_URL` points the tests at an existing server instead (a superuser URL: tests create databases).
 * Without either, the run fails: the PostgreSQL tests are never skipped.
 */
import type { TestProject } from 'vitest/node';
import { SCRATCH_SETTINGS, startLocalPostgres } from '../tools/cluster/local-postgres.js';
import { withClient } from './helpers/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** Prefix of every database this run creates (`freshDatabase`), so a run on a shared server drops only its own. */
    postgresRun: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = `t${Date.now().toString(36)}${process.pid.toString(36)}`;
  project.provide('postgresRun', run);
  const given = process.env['TEST_DATABASE_URL'];
  if (given) {
    project.provide('postgresUrl', given);
    return () => dropRunDatabases(given, run);
  }
  const server = await startLocalPostgres({ prefix: 'vitest-pg-', settings: SCRATCH_SETTINGS, stopOnSignals: true });
  project.provide('postgresUrl', server.url);
  return async () => server.stop();
}

async function dropRunDatabases(url: string, run: string): Promise<void> {
  await withClient(url, async (client) => {
    const { rows } = await client.query<{ name: string }>('SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1)', [`${run}_`]);
    for (const { name } of rows) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

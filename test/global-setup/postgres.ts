/**
 * Starts one throwaway PostgreSQL for the whole test run (Debian's binaries, `initdb` into a temporary
 * directory, `pg_ctl start` on a free loopback port; see `src/cluster/local-postgres.ts`) and hands its
 * URL to the tests as `inject('postgresUrl')`; each test file makes its own databases on it.
 * `TEST_DATABASE_URL` points the tests at an existing server instead (a superuser URL: tests create databases).
 * Without either, the run fails: the PostgreSQL tests are never skipped.
 */
import type { TestProject } from 'vitest/node';
import { SCRATCH_SETTINGS, startLocalPostgres } from '../../src/cluster/local-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env['TEST_DATABASE_URL'];
  if (given) {
    project.provide('postgresUrl', given);
    return () => undefined;
  }
  const server = await startLocalPostgres({ prefix: 'vitest-pg-', settings: SCRATCH_SETTINGS });
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}

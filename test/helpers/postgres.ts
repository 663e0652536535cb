import pg from 'pg';
import { inject } from 'vitest';

let made = 0;

/** The run's PostgreSQL server (started by `test/global-setup-postgres.ts`), as a superuser URL. */
export function postgresServerUrl(): string {
  return inject('postgresUrl');
}

/** A URL like `base` for another database on the same server. */
export function withDatabase(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh, empty database on a server (the run's by default), named after the test file so a leftover is traceable. */
export async function freshDatabase(label = 'test', server = postgresServerUrl()): Promise<string> {
  const name = `${inject('postgresRun')}_${label.replace(/\W+/g, '_').toLowerCase()}_${process.pid}_${++made}`;
  await withClient(server, (client) => client.query(`CREATE DATABASE "${name}"`));
  return withDatabase(server, name);
}

/** Runs `work` on one plain connection to `url`, then closes it. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

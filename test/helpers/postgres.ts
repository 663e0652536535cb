import pg from 'pg';
import { sharedService } from './services.js';

let made = 0;

/** The run's PostgreSQL server (started on the first file's demand; `test/services/shared-services.ts`), as a superuser URL. */
export async function postgresServerUrl(): Promise<string> {
  return (await sharedService('postgres')).url;
}

/** A URL like `base` for another database on the same server. */
export function withDatabase(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh, empty database on a server (the run's by default), named after the test file so a leftover is traceable. */
export async function freshDatabase(label = 'test', serverUrl?: string): Promise<string> {
  const { url, run } = await sharedService('postgres');
  const server = serverUrl ?? url;
  const name = `${run}_${label.replace(/\W+/g, '_').toLowerCase()}_${process.pid}_${++made}`;
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

import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { npmScript } from '../config/npm-script.js';
import type { BuildInfo } from '../ops/build-info.js';

export interface GreetingFacts {
  build: BuildInfo;
  url: string;
  webUrl: string;
  opsUrl: string | undefined;
  /** The database as it may be shown (`describeDatabase`). */
  database: string;
  /** Whether it has no user yet, is in memory, is PostgreSQL: what the last lines suggest doing next. */
  empty: boolean;
  inMemory: boolean;
  shared: boolean;
  /** Whether the web application's origin is plain HTTP (local development, `WEB_ORIGIN` unset or `http://`). */
  plainHttp: boolean;
}

/** What the greeting says when the web application is served over plain HTTP (cookies are not isolated by port). */
export const PLAIN_HTTP_LINES: readonly string[] = [
  'Over plain HTTP every server on this host can read its cookies and set its own (a session made here included):',
  'on a shared or networked machine, set WEB_ORIGIN to an https origin (docs/web-application.md, "Where the cookie goes").',
];

/**
 * What the server prints once it listens, whatever LOG_LEVEL says: scripts and tests wait for these lines to learn
 * the URLs (PORT=0 and WEB_PORT=0 pick free ports; tools/process/server.ts reads them). Meant for stderr: stdout
 * carries JSON log lines only, for a log shipper to parse (the `listening` line says the same in JSON). It never
 * holds a secret: it is printed where anyone may read it, so nothing is seeded and no key is made here.
 */
export function greeting({ build, url, webUrl, opsUrl, database, empty, inMemory, shared, plainHttp }: GreetingFacts): string {
  const lines = [
    `Bearer List API ${build.version} (commit ${build.commit.slice(0, 12)}, schema ${build.schemaVersion})`,
    `Listening on ${url}`,
    `Web application on ${webUrl}`,
    ...(opsUrl ? [`Probes and metrics on ${opsUrl} (/livez, /readyz, /metrics)`] : []),
    '',
    `Open ${webUrl} in a browser: create an account, generate an API key, and run the curl command it shows.`,
    // Cookies are not isolated by port: said where the user of a plain-HTTP setup sees it, not only in the docs.
    ...(plainHttp ? PLAIN_HTTP_LINES : []),
    '',
    `Serving ${database}${empty ? ', which has no users yet' : ''}.`,
    ...(empty && inMemory ? ['It is in memory: gone when the server stops, and out of reach of npm run seed and npm run keys (other processes).'] : []),
    ...(empty && !inMemory
      ? [
          `For sample data to try the API on: ${shared ? 'DATABASE_URL=... ' : ''}${npmScript('seed')}, then ${npmScript('keys')} -- create --user demo for its key.`,
        ]
      : []),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Warns when the process may not open as many files as its listeners may hold connections (the
 * usual soft limit is 1,024): past it, accept() fails and the database cannot open a file.
 */
export function warnOnOpenFileLimit(logger: Logger, listeners: number, maxConnections: number): void {
  let limit: number | undefined;
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    limit = line ? Number(line[1]) : undefined;
  } catch {
    return; // not Linux: nothing to read
  }
  // A few dozen descriptors for the database, its WAL, stdio and the PostgreSQL pool.
  const needed = listeners * maxConnections + 64;
  if (limit !== undefined && needed > limit)
    logger.warn(
      { openFileLimit: limit, maxConnections, listeners },
      `the open-file limit (${limit}) is below what ${listeners} listeners of MAX_CONNECTIONS=${maxConnections} may need (${needed}): raise it (ulimit -n, LimitNOFILE=) or lower MAX_CONNECTIONS`,
    );
}

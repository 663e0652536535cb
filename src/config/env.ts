import { lookup } from 'node:dns/promises';
import { isAbsolute, resolve } from 'node:path';
import { projectRoot } from '../contract/project.js';
import { ConfigError } from './config-error.js';
import { readDatabaseUrl } from './database-secret.js';
import { withoutPassword } from './database-url.js';
import { unknownVariableWarnings } from './known-variables.js';
import { type ConfiguredSecrets, readSecrets, secretFileWarnings } from './secrets.js';
import { readTrustedProxies, type TrustedProxies } from './trusted-proxies.js';

/**
 * What the server does with its own answers: `strict` checks each one against
 * the spec and refuses to send one that breaks it (the default outside
 * production), `log` checks and logs but sends, `off` does not check (the
 * production default: the check costs CPU on every answer).
 */
export const RESPONSE_VALIDATION_MODES = ['strict', 'log', 'off'] as const;
export type ResponseValidationMode = (typeof RESPONSE_VALIDATION_MODES)[number];

/** Where the data lives; what `openStore` needs. */
export interface StoreConfig {
  /** SQLite file, or `:memory:`; unused when `databaseUrl` is set. */
  databasePath: string;
  /** `postgres://…`: selects the PostgreSQL store, shared by every instance on it. */
  databaseUrl?: string | undefined;
  /** PostgreSQL pool size and timeouts; unset fields take `DEFAULT_POSTGRES_SETTINGS`. */
  postgres?: Partial<PostgresSettings> | undefined;
  /** PostgreSQL only: the caches forget at least this often, a backstop to LISTEN/NOTIFY (`CACHE_TTL_MS`). */
  cacheTtlMs?: number | undefined;
}

/** How the PostgreSQL store connects (docs/scaling-out.md); defaults in `DEFAULT_POSTGRES_SETTINGS`. */
export interface PostgresSettings {
  /** Connections each instance keeps at most (`DATABASE_POOL_SIZE`). */
  poolSize: number;
  /** How long to wait for a connection, from the pool or the network, before answering 503 (`DATABASE_CONNECT_TIMEOUT_MS`). */
  connectTimeoutMs: number;
  /** Longest a statement may run, on the server and as seen by the client (`DATABASE_STATEMENT_TIMEOUT_MS`). */
  statementTimeoutMs: number;
}

/** The server's configuration; the store's is part of it. */
export interface ServerConfig extends StoreConfig {
  port: number;
  host: string;
  /** Port of the web application's listener (the pages and the account API); on `host` too. */
  webPort: number;
  /** The web application's public origin (`https://...` makes the session cookie `__Host-` and `Secure`); unset in local development. */
  webOrigin: string | undefined;
  /** The `{base_url}` the pages show in their curl; unset means the public listener's own URL. */
  publicApiUrl: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  basePath: string;
  corsOrigins: string[];
  /** Overrides of the spec's `x-limits`; unset means the spec's values. */
  rateLimitRequests: number | undefined;
  rateLimitWindowSeconds: number | undefined;
  maxBodyBytes: number | undefined;
  failedAuthPerAddress: number | undefined;
  /** Overrides of the spec's `x-limits` timeouts (Node's, so a slow client cannot hold a connection); unset means the spec's values. */
  headersTimeoutMs: number | undefined;
  requestTimeoutMs: number | undefined;
  keepAliveTimeoutMs: number;
  /** Open connections each listener accepts at most, in all and from one client address (`MAX_CONNECTIONS`, `MAX_CONNECTIONS_PER_ADDRESS`). */
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** How long shutdown waits for in-flight requests before cutting connections. */
  shutdownGraceMs: number;
  /**
   * On SIGTERM, how long the listeners go on serving after `/readyz` has turned 503, so a load balancer sees it
   * and stops sending before they close (`SHUTDOWN_DELAY_SECONDS`; 5 in production, 0 elsewhere).
   */
  shutdownDelaySeconds: number;
  /** The ops listener (`/livez`, `/readyz`, `/metrics`): off unless `OPS_PORT` is set; on `OPS_HOST`, 127.0.0.1 by default. */
  ops: { host: string; port: number } | undefined;
  /**
   * `LISTEN_ON_SIGNAL=1`: get ready (code loaded, contracts compiled), say so on stderr, and open the database and
   * listen only on SIGUSR2. `npm run dev` starts the next server this way while it still checks a save.
   */
  listenOnSignal: boolean;
  /** Where spans are exported over OTLP/HTTP (`OTEL_EXPORTER_OTLP_ENDPOINT`); tracing is off, and not even loaded, when unset. */
  otlpEndpoint: string | undefined;
  /** The spans' `service.name` (`OTEL_SERVICE_NAME`, default `bearer-list-api`). */
  serviceName: string;
  /** Whether answers are checked against the spec before they are sent (see `response-validation.ts`). */
  responseValidation: ResponseValidationMode;
  /** Days key events, and keys their owners removed, are kept (`KEY_EVENTS_RETENTION_DAYS`; docs/data.md, "Retention"). */
  keyEventsRetentionDays: number;
  /** The prefix an IPv6 client is counted by in every per-client budget (`CLIENT_IPV6_PREFIX`, src/http/client-key.ts). */
  clientIpv6PrefixLength: number;
  /** Secrets from `*_SECRETS` or `*_SECRETS_FILE`, newest first (config/secrets.ts); a name left out uses the database's. */
  secrets: ConfiguredSecrets;
  /** Proxies whose forwarded header names the client (`TRUSTED_PROXIES`, `FORWARDED_HEADER`); none by default, so the client is the TCP peer. */
  trustedProxies: TrustedProxies;
}

/**
 * Open connections per listener: well under the usual 1,024 open files per process for the two
 * listeners together would be too few for a busy instance, so 1,000 each, and the server warns at
 * startup when the process's open-file limit cannot hold them (docs/operations.md).
 */
export const DEFAULT_MAX_CONNECTIONS = 1_000;
/** One client address may hold a tenth: one client with slow requests cannot take every connection. */
const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 100;

export { ConfigError };

/**
 * `LOAD_ON_SIGNAL=1`: load the code, say so on stderr, and read the configuration and the contracts only on SIGUSR2
 * (then `LISTEN_ON_SIGNAL` as usual). `npm run dev` keeps its spare server this way between saves. Read on its own,
 * before `readServerConfig`, because the server waits before it reads anything.
 */
export function loadOnSignal(env: NodeJS.ProcessEnv = process.env): boolean {
  return flag(env, 'LOAD_ON_SIGNAL');
}

/** The store's configuration, from environment variables; the keys CLI needs no more than this. */
export function readStoreConfig(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  const databasePath = env['DATABASE_PATH'] ?? 'data/api.sqlite';
  const config: StoreConfig = { databasePath: databasePath === ':memory:' || isAbsolute(databasePath) ? databasePath : resolve(projectRoot, databasePath) };
  const databaseUrl = readDatabaseUrl(env);
  // Checked whether or not they take effect: a value that is wrong is refused, even where it would be ignored (a warning says so).
  for (const [name, min, max] of POSTGRES_ONLY) optionalInteger(env, name, min, max);
  if (databaseUrl === undefined || databaseUrl === '') return config;
  checkDatabaseUrl(databaseUrl);
  const postgres: Partial<PostgresSettings> = {};
  const poolSize = optionalInteger(env, 'DATABASE_POOL_SIZE', 1, 1_000);
  if (poolSize !== undefined) postgres.poolSize = poolSize;
  const connectTimeoutMs = optionalInteger(env, 'DATABASE_CONNECT_TIMEOUT_MS', 100, 600_000);
  if (connectTimeoutMs !== undefined) postgres.connectTimeoutMs = connectTimeoutMs;
  const statementTimeoutMs = optionalInteger(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 100, 600_000);
  if (statementTimeoutMs !== undefined) postgres.statementTimeoutMs = statementTimeoutMs;
  return { ...config, databaseUrl, postgres, cacheTtlMs: optionalInteger(env, 'CACHE_TTL_MS', 100, 3_600_000) };
}

/** The settings that only the PostgreSQL store reads, with their bounds. */
const POSTGRES_ONLY = [
  ['DATABASE_POOL_SIZE', 1, 1_000],
  ['DATABASE_CONNECT_TIMEOUT_MS', 100, 600_000],
  ['DATABASE_STATEMENT_TIMEOUT_MS', 100, 600_000],
  ['CACHE_TTL_MS', 100, 3_600_000],
] as const;

/**
 * What is set but has no effect in the mode chosen, and what is risky though allowed: each a sentence the
 * server logs as a warning at startup (a mistake to see, not one to stop for). `uid` is the process's.
 */
export function configurationWarnings(env: NodeJS.ProcessEnv = process.env, uid: number | undefined = process.getuid?.()): string[] {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  const warnings: string[] = [...unknownVariableWarnings(env), ...secretFileWarnings(env)];
  if (set('DATABASE_URL') || set('DATABASE_URL_FILE')) {
    if (set('DATABASE_PATH')) warnings.push('DATABASE_PATH has no effect with DATABASE_URL set: the data is in PostgreSQL');
  } else {
    for (const [name] of POSTGRES_ONLY)
      if (set(name)) warnings.push(`${name} has no effect without DATABASE_URL: it sets the PostgreSQL store, and this server uses SQLite (DATABASE_PATH)`);
  }
  if (set('FORWARDED_HEADER') && !set('TRUSTED_PROXIES'))
    warnings.push('FORWARDED_HEADER has no effect without TRUSTED_PROXIES: no forwarded header is read, the client is the TCP peer');
  if (set('OTEL_SERVICE_NAME') && !set('OTEL_EXPORTER_OTLP_ENDPOINT'))
    warnings.push('OTEL_SERVICE_NAME has no effect without OTEL_EXPORTER_OTLP_ENDPOINT: tracing is off');
  if (set('FAILED_AUTH_TOTAL'))
    warnings.push(
      'FAILED_AUTH_TOTAL has no effect: there is no failed-authentication budget for all addresses together any more (ADR 0025); FAILED_AUTH_PER_ADDRESS is read',
    );
  if (set('OPS_HOST') && !set('OPS_PORT')) warnings.push('OPS_HOST has no effect without OPS_PORT: the ops listener (/livez, /readyz, /metrics) is off');
  if (uid === 0)
    warnings.push(
      'running as root: a flaw in the server or a dependency would hold the whole machine; run it as an account of its own (docs/server.md, "Where the data lives")',
    );
  return warnings;
}

/**
 * Refuses a `HOST` this machine cannot listen on because the name resolves to nothing (`999.1.1.1`, a typo),
 * before anything is opened; the listener then names an address it cannot bind (EADDRNOTAVAIL).
 */
export async function checkHostResolves(host: string): Promise<void> {
  try {
    await lookup(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'no address';
    throw new ConfigError(
      `HOST ${JSON.stringify(host)} does not resolve to an address (${code}): set HOST to an address of this machine, such as 127.0.0.1 or 0.0.0.0`,
    );
  }
}

/** Refuses anything but a postgres:// URL with a host; never echoes the value, which may hold a password. */
function checkDatabaseUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL must be a URL such as postgres://user:password@host:5432/database (the value given does not parse as a URL)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(
      `DATABASE_URL must start with postgres:// or postgresql://, not ${url.protocol}// (leave it unset for the embedded SQLite store, DATABASE_PATH)`,
    );
  }
  if (url.hostname === '' && !url.searchParams.has('host')) throw new ConfigError('DATABASE_URL names no host: postgres://user:password@host:5432/database');
}

/** The database as it may be logged: the SQLite path, or the PostgreSQL URL without its password. */
export function describeDatabase(config: StoreConfig): string {
  if (!config.databaseUrl) return config.databasePath;
  return withoutPassword(new URL(config.databaseUrl), '***').toString();
}

/** The values `NODE_ENV` may take; unset is `development`. Anything else (`prodution`) is refused, not silently taken for development. */
export const NODE_ENVS = ['development', 'test', 'production'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/**
 * `SHUTDOWN_DELAY_SECONDS` in production: a load balancer checking `/readyz` every 2 s with 2 failures to
 * mark an instance down sees it within about 4 s. Elsewhere 0: a developer's Ctrl-C stops at once.
 */
export const DEFAULT_PRODUCTION_SHUTDOWN_DELAY_SECONDS = 5;

/** `KEY_EVENTS_RETENTION_DAYS` when unset: a year of each key's audit trail (docs/data.md, "Retention"). */
export const DEFAULT_KEY_EVENTS_RETENTION_DAYS = 365;

/** `LOG_LEVEL` when unset: one JSON line per request. The bench measures the server at this level. */
export const DEFAULT_LOG_LEVEL = 'info';

/** The server's configuration, from environment variables (documented in docs/server.md, "Environment variables"). */
export function readServerConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const logLevel = env['LOG_LEVEL'] || DEFAULT_LOG_LEVEL;
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
  if (!levels.includes(logLevel as ServerConfig['logLevel']))
    throw new ConfigError(`LOG_LEVEL must be one of ${levels.join(', ')}, not ${JSON.stringify(logLevel)}`);
  const basePath = env['BASE_PATH'] ?? '';
  if (basePath !== '' && !/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(basePath))
    throw new ConfigError(`BASE_PATH must look like /api or /v1/lists, not ${JSON.stringify(basePath)}`);
  const nodeEnv = env['NODE_ENV'] || 'development';
  if (!NODE_ENVS.includes(nodeEnv as NodeEnv)) throw new ConfigError(`NODE_ENV must be one of ${NODE_ENVS.join(', ')}, not ${JSON.stringify(nodeEnv)}`);
  const production = nodeEnv === 'production';
  // In production the engine is named, never defaulted: a DATABASE_URL that did not arrive (a misspelt name, a
  // secret not mounted) would otherwise start an instance on an empty SQLite file of its own that reports ready.
  const store = readStoreConfig(env);
  if (production && !store.databaseUrl && !env['DATABASE_PATH'])
    throw new ConfigError(
      'NODE_ENV=production needs its database named: DATABASE_URL or DATABASE_URL_FILE for PostgreSQL, or DATABASE_PATH for the embedded SQLite file (e.g. DATABASE_PATH=/var/lib/bearer-list-api/api.sqlite)',
    );
  const responseValidation = env['RESPONSE_VALIDATION'] || (production ? 'off' : 'strict');
  if (!RESPONSE_VALIDATION_MODES.includes(responseValidation as ResponseValidationMode)) {
    throw new ConfigError(`RESPONSE_VALIDATION must be one of ${RESPONSE_VALIDATION_MODES.join(', ')}, not ${JSON.stringify(responseValidation)}`);
  }
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const maxConnections = integer(env, 'MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS, 1, 1_000_000);
  const maxConnectionsPerAddress = integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', Math.min(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, maxConnections), 1, 1_000_000);
  if (maxConnectionsPerAddress > maxConnections)
    throw new ConfigError(`MAX_CONNECTIONS_PER_ADDRESS (${maxConnectionsPerAddress}) cannot be more than MAX_CONNECTIONS (${maxConnections})`);
  const host = env['HOST'] || '127.0.0.1';
  const webPort = integer(env, 'WEB_PORT', env['PORT'] === undefined || env['PORT'] === '' ? 3001 : 0, 0, 65535);
  const ops = opsListener(env);
  refuseSharedPorts([
    { name: 'PORT', host, port },
    { name: 'WEB_PORT', host, port: webPort },
    ...(ops ? [{ name: 'OPS_PORT', host: ops.host, port: ops.port }] : []),
  ]);
  return {
    ...store,
    port,
    // Empty is unset, as for every other variable: `HOST=` in an env file must not mean "every interface" (Node's reading of '').
    host,
    // `npm start` as is: 3001. A process given its own PORT (tests, the bench, several instances) gets a free web port
    // unless WEB_PORT says otherwise, so two of them never collide on 3001; both addresses are printed.
    webPort,
    webOrigin: origin(env, 'WEB_ORIGIN'),
    publicApiUrl: url(env, 'PUBLIC_API_URL'),
    logLevel: logLevel as ServerConfig['logLevel'],
    basePath: basePath.replace(/\/$/, ''),
    corsOrigins: corsOrigins(env),
    rateLimitRequests: optionalInteger(env, 'RATE_LIMIT_REQUESTS', 1, 1_000_000_000),
    rateLimitWindowSeconds: optionalInteger(env, 'RATE_LIMIT_WINDOW_SECONDS', 1, 86_400),
    maxBodyBytes: optionalInteger(env, 'MAX_BODY_BYTES', 2, 1_048_576),
    failedAuthPerAddress: optionalInteger(env, 'FAILED_AUTH_PER_ADDRESS', 1, 1_000_000_000),
    headersTimeoutMs: optionalInteger(env, 'HEADERS_TIMEOUT_MS', 100, 600_000),
    requestTimeoutMs: optionalInteger(env, 'REQUEST_TIMEOUT_MS', 100, 600_000),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    maxConnections,
    maxConnectionsPerAddress,
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    shutdownDelaySeconds: integer(env, 'SHUTDOWN_DELAY_SECONDS', production ? DEFAULT_PRODUCTION_SHUTDOWN_DELAY_SECONDS : 0, 0, 300),
    ops,
    listenOnSignal: flag(env, 'LISTEN_ON_SIGNAL'),
    otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    serviceName: env['OTEL_SERVICE_NAME'] || 'bearer-list-api',
    responseValidation: responseValidation as ResponseValidationMode,
    trustedProxies: readTrustedProxies(env),
    keyEventsRetentionDays: integer(env, 'KEY_EVENTS_RETENTION_DAYS', DEFAULT_KEY_EVENTS_RETENTION_DAYS, 1, 36_500),
    // 32 to 128: a prefix shorter than what a provider gives one site would count whole neighbourhoods as one client.
    clientIpv6PrefixLength: integer(env, 'CLIENT_IPV6_PREFIX', 64, 32, 128),
    secrets: readSecrets(env),
  };
}

/** Addresses every interface: a listener there takes the port on each address, 127.0.0.1 among them. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Two listeners given one port (not 0, which picks a free one) on the same address, or where one is every address:
 * the second would fail with EADDRINUSE and advice about PORT and WEB_PORT, whichever was the mistake.
 */
function refuseSharedPorts(listeners: { name: string; host: string; port: number }[]): void {
  for (const [index, later] of listeners.entries()) {
    for (const earlier of listeners.slice(0, index)) {
      const overlap = earlier.host === later.host || WILDCARD_HOSTS.has(earlier.host) || WILDCARD_HOSTS.has(later.host);
      if (later.port !== 0 && later.port === earlier.port && overlap)
        throw new ConfigError(`${later.name} (${later.port}) is also ${earlier.name}: each listener needs a port of its own (or 0 for a free one)`);
    }
  }
}

/** `OPS_PORT` (and `OPS_HOST`): the ops listener's address; none when `OPS_PORT` is unset. */
function opsListener(env: NodeJS.ProcessEnv): { host: string; port: number } | undefined {
  const port = optionalInteger(env, 'OPS_PORT', 0, 65535);
  const host = env['OPS_HOST'] || '127.0.0.1';
  return port === undefined ? undefined : { host, port };
}

/** An origin as browsers send it in `Origin`: scheme, host and port, nothing else. */
function origin(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!isOrigin(raw)) {
    throw new ConfigError(
      `${name} must be an origin such as https://keys.example.com (scheme, host and port; no path or trailing slash), not ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/**
 * `CORS_ORIGINS`: origins compared exactly with the `Origin` header a browser sends, which is
 * never anything but `scheme://host[:port]` in lower case. An entry that cannot equal one (a
 * trailing slash, a path, no scheme, upper case, `*`) would silently allow nobody, so it is refused.
 */
function corsOrigins(env: NodeJS.ProcessEnv): string[] {
  const entries = (env['CORS_ORIGINS'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (isOrigin(entry)) continue;
    const suggestion = originOf(entry);
    throw new ConfigError(
      `CORS_ORIGINS must list origins as browsers send them, such as https://app.example.com (scheme, host and port; no path or trailing slash), ` +
        `separated by commas; ${JSON.stringify(entry)} can never match one${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
    );
  }
  return entries;
}

function isOrigin(raw: string): boolean {
  return originOf(raw) === raw;
}

/** The http(s) origin of a URL, or undefined when it is not an http(s) URL. */
function originOf(raw: string): string | undefined {
  try {
    const parsed = new URL(raw);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

function url(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^https?:\/\/[^\s'"]+$/.test(raw)) throw new ConfigError(`${name} must be an http(s) URL without spaces or quotes, not ${JSON.stringify(raw)}`);
  return raw.replace(/\/+$/, '');
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  return optionalInteger(env, name, min, max) ?? fallback;
}

function optionalInteger(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  // Decimal digits only: Number() would also take '1e3', '0x50' and ' 42', which no operator means as a port or a count.
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

/** A switch: unset, empty or `0` is off, `1` is on; anything else is refused. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new ConfigError(`${name} must be 1 (on) or 0 (off), not ${JSON.stringify(raw)}`);
}

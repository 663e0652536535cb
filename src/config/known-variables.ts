/**
 * Every environment variable the server reads, as docs/server.md lists them (a test holds the two equal), and the
 * warnings for what looks like one of them but is not: a variable under one of the server's own prefixes that it
 * does not read (`DATABASE_PASWORD_FILE`), or a close misspelling of a name it does (`DATABSE_URL`). A
 * misspelt setting is otherwise silently left out: the default it falls back to may be a mistake (an empty
 * SQLite file instead of the shared PostgreSQL), so the start names it.
 */
import { distance } from 'fastest-levenshtein';

export const KNOWN_VARIABLES = [
  'PORT',
  'WEB_PORT',
  'HOST',
  'WEB_ORIGIN',
  'TRUSTED_PROXIES',
  'FORWARDED_HEADER',
  'CLIENT_IPV6_PREFIX',
  'PUBLIC_API_URL',
  'DATABASE_PATH',
  'DATABASE_URL',
  'DATABASE_URL_FILE',
  'DATABASE_PASSWORD_FILE',
  'DATABASE_POOL_SIZE',
  'DATABASE_CONNECT_TIMEOUT_MS',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'CACHE_TTL_MS',
  'KEY_EVENTS_RETENTION_DAYS',
  'CURSOR_SECRETS',
  'CURSOR_SECRETS_FILE',
  'DEVICE_COOKIE_SECRETS',
  'DEVICE_COOKIE_SECRETS_FILE',
  'SIGN_IN_COUNTER_SECRETS',
  'SIGN_IN_COUNTER_SECRETS_FILE',
  'PG_BIN',
  'LOG_LEVEL',
  'BASE_PATH',
  'CORS_ORIGINS',
  'RATE_LIMIT_REQUESTS',
  'RATE_LIMIT_WINDOW_SECONDS',
  'MAX_BODY_BYTES',
  'FAILED_AUTH_PER_ADDRESS',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
  'MAX_CONNECTIONS',
  'MAX_CONNECTIONS_PER_ADDRESS',
  'SHUTDOWN_GRACE_MS',
  'SHUTDOWN_DELAY_SECONDS',
  'OPS_PORT',
  'LISTEN_ON_SIGNAL',
  'LOAD_ON_SIGNAL',
  'OPS_HOST',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'NODE_ENV',
  'RESPONSE_VALIDATION',
] as const;

/** Names retired with a warning of their own (`configurationWarnings`), so not "unknown". */
const RETIRED_VARIABLES = new Set(['FAILED_AUTH_TOTAL']);

/**
 * Prefixes only this server uses: anything under them that it does not read is a mistake. Broad prefixes other
 * software reads too (`NODE_`, `OTEL_`, `PG`, `LOG_`) are left to the misspelling test alone.
 */
const OWN_PREFIXES = [
  'DATABASE_',
  'OPS_',
  'CACHE_',
  'CURSOR_',
  'DEVICE_COOKIE_',
  'SIGN_IN_',
  'RATE_LIMIT_',
  'FAILED_AUTH_',
  'SHUTDOWN_',
  'KEEP_ALIVE_',
  'WEB_',
  'KEY_EVENTS_',
];

/**
 * How far a name may be from a known one to count as its misspelling: two edits for a long name (`DATABSE_URL` is
 * a swap, two edits), one for a short one; none for names under five characters, where one edit reaches
 * unrelated variables (`PORT` and `PWD`... `HOME`).
 */
function maxEdits(name: string): number {
  if (name.length < 5) return 0;
  return name.length < 8 ? 1 : 2;
}

/** One sentence per variable set in `env` that looks like a setting of this server but is not one. */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv): string[] {
  const known = new Set<string>(KNOWN_VARIABLES);
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (known.has(name) || RETIRED_VARIABLES.has(name)) continue;
    const closest = closestKnown(name);
    if (closest) warnings.push(`${name} is not a setting of this server and is ignored: did you mean ${closest}? (docs/server.md, "Environment variables")`);
    else if (OWN_PREFIXES.some((prefix) => name.startsWith(prefix)))
      warnings.push(`${name} is not a setting of this server and is ignored (docs/server.md, "Environment variables" lists them)`);
  }
  return warnings;
}

function closestKnown(name: string): string | undefined {
  let best: { name: string; edits: number } | undefined;
  for (const candidate of KNOWN_VARIABLES) {
    const allowed = Math.min(maxEdits(candidate), maxEdits(name));
    if (allowed === 0 || Math.abs(candidate.length - name.length) > allowed) continue;
    const edits = distance(name, candidate);
    if (edits <= allowed && (!best || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}

import { describe, expect, it } from 'vitest';
import { ConfigError, describeDatabase, readServerConfig, readStoreConfig } from '../../src/config/env.js';
import { resolveLimits } from '../../src/config/limits.js';
import { loadSpec } from '../../src/contract/spec.js';
import { requestContract } from '../helpers/contract.js';

describe('configuration from the environment', () => {
  it.each([
    { given: {}, want: 'strict' },
    { given: { NODE_ENV: 'development' }, want: 'strict' },
    { given: { NODE_ENV: 'production', DATABASE_PATH: 'data/api.sqlite' }, want: 'off' },
    { given: { NODE_ENV: 'production', DATABASE_PATH: 'data/api.sqlite', RESPONSE_VALIDATION: 'log' }, want: 'log' },
    { given: { RESPONSE_VALIDATION: 'off' }, want: 'off' },
  ])('response validation with $given is $want', ({ given, want }) => {
    expect(readServerConfig(given).responseValidation).toBe(want);
  });

  it.each([
    { given: {}, want: { port: 3000, webPort: 3001 } },
    { given: { PORT: '0' }, want: { port: 0, webPort: 0 } },
    { given: { PORT: '8080' }, want: { port: 8080, webPort: 0 } },
    { given: { PORT: '8080', WEB_PORT: '8081' }, want: { port: 8080, webPort: 8081 } },
  ])('listens for the web application on $want.webPort with $given', ({ given, want }) => {
    expect(readServerConfig(given)).toMatchObject(want);
  });

  it.each([
    { given: {}, want: 365 },
    { given: { KEY_EVENTS_RETENTION_DAYS: '30' }, want: 30 },
  ])('keeps key events $want days with $given', ({ given, want }) => {
    expect(readServerConfig(given).keyEventsRetentionDays).toBe(want);
  });

  it('refuses a retention that is not a whole number of days from 1', () => {
    expect(() => readServerConfig({ KEY_EVENTS_RETENTION_DAYS: '0' })).toThrow(/KEY_EVENTS_RETENTION_DAYS must be a whole number from 1 to 36500/);
  });

  it('takes WEB_ORIGIN as an origin only, and PUBLIC_API_URL without a trailing slash', () => {
    expect(readServerConfig({ WEB_ORIGIN: 'https://keys.example.com', PUBLIC_API_URL: 'https://api.example.com/' })).toMatchObject({
      webOrigin: 'https://keys.example.com',
      publicApiUrl: 'https://api.example.com',
    });
    for (const origin of ['https://keys.example.com/', 'https://keys.example.com/app', 'ftp://keys.example.com', 'keys.example.com']) {
      expect(() => readServerConfig({ WEB_ORIGIN: origin }), origin).toThrow(/WEB_ORIGIN must be an origin/);
    }
    expect(() => readServerConfig({ PUBLIC_API_URL: "http://x/'; rm -rf /" })).toThrow(/PUBLIC_API_URL must be an http\(s\) URL/);
  });

  it('takes CORS_ORIGINS as a comma-separated list of origins, spaces and empty entries aside', () => {
    expect(readServerConfig({}).corsOrigins).toEqual([]);
    expect(readServerConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
  });

  it.each([
    { given: 'https://app.example.com/', suggests: 'https://app.example.com' },
    { given: 'https://app.example.com/app', suggests: 'https://app.example.com' },
    { given: 'HTTPS://APP.EXAMPLE.COM', suggests: 'https://app.example.com' },
    { given: 'https://app.example.com:443', suggests: 'https://app.example.com' },
    { given: 'app.example.com', suggests: undefined },
    { given: '*', suggests: undefined },
    { given: 'ftp://app.example.com', suggests: undefined },
  ])('refuses the CORS origin $given, which no browser sends, naming it', ({ given, suggests }) => {
    const read = () => readServerConfig({ CORS_ORIGINS: `https://ok.example.com,${given}` });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(`CORS_ORIGINS must list origins as browsers send them`);
    expect(read).toThrow(`${JSON.stringify(given)} can never match one`);
    if (suggests) expect(read).toThrow(`did you mean ${suggests}?`);
    else expect(read).not.toThrow('did you mean');
  });

  it('refuses an unknown response validation mode, naming the variable', () => {
    expect(() => readServerConfig({ RESPONSE_VALIDATION: 'sometimes' })).toThrow(ConfigError);
    expect(() => readServerConfig({ RESPONSE_VALIDATION: 'sometimes' })).toThrow(/RESPONSE_VALIDATION must be one of strict, log, off/);
  });

  it('gives the keys CLI the store settings alone, resolved as the server resolves them', () => {
    expect(readStoreConfig({ DATABASE_PATH: ':memory:' })).toEqual({ databasePath: ':memory:' });
    expect(readStoreConfig({ DATABASE_PATH: 'x/y.sqlite' }).databasePath).toBe(readServerConfig({ DATABASE_PATH: 'x/y.sqlite' }).databasePath);
  });

  it('selects PostgreSQL with DATABASE_URL, with the pool and cache settings given', () => {
    expect(
      readStoreConfig({
        DATABASE_PATH: ':memory:',
        DATABASE_URL: 'postgres://api:secret@db.internal:5432/api',
        DATABASE_POOL_SIZE: '20',
        DATABASE_CONNECT_TIMEOUT_MS: '1500',
        DATABASE_STATEMENT_TIMEOUT_MS: '3000',
        CACHE_TTL_MS: '2000',
      }),
    ).toEqual({
      databasePath: ':memory:',
      databaseUrl: 'postgres://api:secret@db.internal:5432/api',
      postgres: { poolSize: 20, connectTimeoutMs: 1500, statementTimeoutMs: 3000 },
      cacheTtlMs: 2000,
    });
    expect(readStoreConfig({ DATABASE_URL: 'postgresql://db/api' })).toMatchObject({ postgres: {}, cacheTtlMs: undefined });
    expect(readStoreConfig({ DATABASE_URL: '' })).not.toHaveProperty('databaseUrl');
  });

  it.each([
    { given: { DATABASE_URL: 'not a url' }, want: /DATABASE_URL must be a URL/ },
    { given: { DATABASE_URL: 'mysql://u:hunter2@db/api' }, want: /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\// },
    { given: { DATABASE_URL: 'postgres:///api' }, want: /DATABASE_URL names no host/ },
    { given: { DATABASE_URL: 'postgres://db/api', DATABASE_POOL_SIZE: '0' }, want: /DATABASE_POOL_SIZE must be a whole number from 1/ },
    { given: { DATABASE_URL: 'postgres://db/api', CACHE_TTL_MS: 'soon' }, want: /CACHE_TTL_MS must be a whole number/ },
  ])('refuses $given, naming the variable and never echoing a password', ({ given, want }) => {
    expect(() => readServerConfig(given)).toThrow(ConfigError);
    expect(() => readServerConfig(given)).toThrow(want);
    try {
      readServerConfig(given);
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('describes the database for the log without its password', () => {
    expect(describeDatabase(readStoreConfig({ DATABASE_URL: 'postgres://api:s3cret@db:5432/api' }))).toBe('postgres://api:***@db:5432/api');
    expect(describeDatabase(readStoreConfig({ DATABASE_URL: 'postgres://api@db:5432/api?password=s3cret&sslmode=require' }))).toBe(
      'postgres://api@db:5432/api?password=***&sslmode=require',
    );
    expect(describeDatabase(readStoreConfig({ DATABASE_PATH: ':memory:' }))).toBe(':memory:');
  });

  it.each([
    { given: {}, want: { maxConnections: 1000, maxConnectionsPerAddress: 100 } },
    { given: { MAX_CONNECTIONS: '50' }, want: { maxConnections: 50, maxConnectionsPerAddress: 50 } },
    { given: { MAX_CONNECTIONS: '5000', MAX_CONNECTIONS_PER_ADDRESS: '5000' }, want: { maxConnections: 5000, maxConnectionsPerAddress: 5000 } },
  ])('caps connections per listener at $want with $given', ({ given, want }) => {
    expect(readServerConfig(given)).toMatchObject(want);
  });

  it.each([
    { given: { MAX_CONNECTIONS: '0' }, want: /MAX_CONNECTIONS must be a whole number from 1/ },
    {
      given: { MAX_CONNECTIONS: '10', MAX_CONNECTIONS_PER_ADDRESS: '20' },
      want: /MAX_CONNECTIONS_PER_ADDRESS \(20\) cannot be more than MAX_CONNECTIONS \(10\)/,
    },
  ])('refuses the connection caps $given', ({ given, want }) => {
    expect(() => readServerConfig(given)).toThrow(want);
  });

  it('refuses a headers timeout longer than the request timeout (Node would refuse to start, with a stack)', () => {
    expect(() => resolveLimits(requestContract, readServerConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '2000' }))).toThrow(ConfigError);
    expect(() => resolveLimits(requestContract, readServerConfig({ HEADERS_TIMEOUT_MS: '50000' }))).toThrow(
      /cannot be longer than the request timeout \(30000 ms/,
    );
    expect(resolveLimits(requestContract, readServerConfig({ HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '2000' })).headersTimeoutMs).toBe(2000);
  });
});

describe('limits the environment may set, against the headers that announce them', () => {
  // RATE_LIMIT_* and FAILED_AUTH_* end up in RateLimit-* and Retry-After, whose schemas the spec bounds:
  // a value the headers cannot carry would make every answer break the contract.
  const schemas = loadSpec().components['schemas'] as Record<string, { maximum?: number }>;
  const most = (name: string) => {
    const maximum = schemas[name]?.maximum;
    if (maximum === undefined) throw new Error(`openapi/openapi.yaml has no components.schemas.${name}.maximum; update this test`);
    return maximum;
  };
  it.each([
    { variable: 'RATE_LIMIT_REQUESTS', schema: 'RequestCount' },
    { variable: 'FAILED_AUTH_PER_ADDRESS', schema: 'RequestCount' },
    { variable: 'RATE_LIMIT_WINDOW_SECONDS', schema: 'Seconds' },
  ])('$variable goes up to the spec maximum of $schema and no further', ({ variable, schema }) => {
    const maximum = most(schema);
    expect(() => readServerConfig({ [variable]: String(maximum) }), `update src/config/env.ts: ${variable} must allow ${maximum}`).not.toThrow();
    expect(() => readServerConfig({ [variable]: String(maximum + 1) }), `update src/config/env.ts: ${variable} must stop at ${maximum}`).toThrow(
      new RegExp(`${variable} must be a whole number from \\d+ to ${maximum}`),
    );
  });
});

describe('TRUSTED_PROXIES and FORWARDED_HEADER', () => {
  it.each([
    { given: {}, want: { addresses: [], header: 'x-forwarded-for' } },
    {
      given: { TRUSTED_PROXIES: '10.0.0.5, 10.0.0.0/8,fd00::/8, 192.168.0.0/255.255.0.0, loopback' },
      want: { addresses: ['10.0.0.5', '10.0.0.0/8', 'fd00::/8', '192.168.0.0/255.255.0.0', 'loopback'], header: 'x-forwarded-for' },
    },
    { given: { TRUSTED_PROXIES: '127.0.0.1', FORWARDED_HEADER: 'forwarded' }, want: { addresses: ['127.0.0.1'], header: 'forwarded' } },
  ])('reads $given', ({ given, want }) => {
    expect(readServerConfig(given).trustedProxies).toEqual(want);
  });

  it.each([
    { given: { TRUSTED_PROXIES: '10.0.0.0/33' }, want: /^TRUSTED_PROXIES must list IP addresses or CIDR ranges .*"10\.0\.0\.0\/33" is neither$/ },
    { given: { TRUSTED_PROXIES: '10.0.0.1, proxy.internal' }, want: /"proxy\.internal" is neither/ },
    { given: { TRUSTED_PROXIES: '*' }, want: /"\*" is neither/ },
    { given: { FORWARDED_HEADER: 'X-Real-IP' }, want: /^FORWARDED_HEADER must be one of x-forwarded-for, forwarded .*not "X-Real-IP"$/ },
  ])('refuses $given', ({ given, want }) => {
    expect(() => readServerConfig(given)).toThrow(ConfigError);
    expect(() => readServerConfig(given)).toThrow(want);
  });
});

describe('CLIENT_IPV6_PREFIX', () => {
  it.each([
    { given: {}, want: 64 },
    { given: { CLIENT_IPV6_PREFIX: '48' }, want: 48 },
    { given: { CLIENT_IPV6_PREFIX: '128' }, want: 128 },
  ])('with $given counts an IPv6 client by its /$want', ({ given, want }) => {
    expect(readServerConfig(given).clientIpv6PrefixLength).toBe(want);
  });

  it('refuses a prefix that would count whole neighbourhoods as one client', () => {
    expect(() => readServerConfig({ CLIENT_IPV6_PREFIX: '16' })).toThrow(/CLIENT_IPV6_PREFIX/);
  });
});

/** The settings of issue 21: the ops listener, draining, NODE_ENV, and what is refused or warned about before anything opens. */
import { describe, expect, it } from 'vitest';
import { ConfigError, checkHostResolves, configurationWarnings, loadOnSignal, readServerConfig } from '../../src/config/env.js';

describe('the ops listener and draining settings', () => {
  it.each([
    { given: {}, want: undefined },
    { given: { OPS_PORT: '9464' }, want: { host: '127.0.0.1', port: 9464 } },
    { given: { OPS_PORT: '0', OPS_HOST: '0.0.0.0' }, want: { host: '0.0.0.0', port: 0 } },
  ])('the ops listener with $given is $want', ({ given, want }) => {
    expect(readServerConfig(given).ops).toEqual(want);
  });

  it.each([
    { given: {}, want: 0 },
    { given: { NODE_ENV: 'test' }, want: 0 },
    { given: { NODE_ENV: 'production', DATABASE_PATH: 'data/api.sqlite' }, want: 5 },
    { given: { NODE_ENV: 'production', DATABASE_PATH: 'data/api.sqlite', SHUTDOWN_DELAY_SECONDS: '0' }, want: 0 },
    { given: { SHUTDOWN_DELAY_SECONDS: '15' }, want: 15 },
  ])('the shutdown delay with $given is $want s', ({ given, want }) => {
    expect(readServerConfig(given).shutdownDelaySeconds).toBe(want);
  });

  it.each([
    { given: {}, want: false },
    { given: { LISTEN_ON_SIGNAL: '0' }, want: false },
    { given: { LISTEN_ON_SIGNAL: '1' }, want: true },
  ])('holds the server until SIGUSR2 with $given: $want', ({ given, want }) => {
    expect(readServerConfig(given).listenOnSignal).toBe(want);
  });

  it.each([
    { given: {}, want: false },
    { given: { LOAD_ON_SIGNAL: '0' }, want: false },
    { given: { LOAD_ON_SIGNAL: '1' }, want: true },
  ])('holds the server before it reads anything with $given: $want', ({ given, want }) => {
    expect(loadOnSignal(given)).toBe(want);
  });

  it('refuses LOAD_ON_SIGNAL other than 1 or 0', () => {
    expect(() => loadOnSignal({ LOAD_ON_SIGNAL: 'yes' })).toThrow(/LOAD_ON_SIGNAL must be 1 \(on\) or 0 \(off\), not "yes"/);
  });

  it('takes OTEL_EXPORTER_OTLP_ENDPOINT as an http(s) URL, and tracing is off without it', () => {
    expect(readServerConfig({}).otlpEndpoint).toBeUndefined();
    expect(readServerConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).otlpEndpoint).toBe('http://collector:4318');
    expect(() => readServerConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
  });
});

describe('refused early and clearly', () => {
  it.each([
    { given: { NODE_ENV: 'prodution' }, want: /NODE_ENV must be one of development, test, production, not "prodution"/ },
    { given: { DATABASE_POOL_SIZE: '0' }, want: /DATABASE_POOL_SIZE must be a whole number from 1/ },
    { given: { CACHE_TTL_MS: '50' }, want: /CACHE_TTL_MS must be a whole number from 100/ },
    { given: { OPS_PORT: '70000' }, want: /OPS_PORT must be a whole number from 0 to 65535/ },
    { given: { SHUTDOWN_DELAY_SECONDS: '-1' }, want: /SHUTDOWN_DELAY_SECONDS must be a whole number from 0 to 300/ },
    { given: { LISTEN_ON_SIGNAL: 'yes' }, want: /LISTEN_ON_SIGNAL must be 1 \(on\) or 0 \(off\), not "yes"/ },
  ])('refuses $given, even where the setting would be ignored', ({ given, want }) => {
    expect(() => readServerConfig(given)).toThrow(ConfigError);
    expect(() => readServerConfig(given)).toThrow(want);
  });

  it.each([{ PORT: '1e3' }, { PORT: '0x50' }, { OPS_PORT: ' 9464' }, { MAX_CONNECTIONS: '1e4' }])(
    'refuses %o: a number is written in decimal digits, not as JavaScript would read it',
    (given) => {
      expect(() => readServerConfig(given)).toThrow(/must be a whole number from/);
    },
  );

  it.each([
    { given: { OPS_PORT: '3000' }, want: /OPS_PORT \(3000\) is also PORT/ },
    { given: { PORT: '8080', WEB_PORT: '8080' }, want: /WEB_PORT \(8080\) is also PORT/ },
    { given: { OPS_PORT: '3001' }, want: /OPS_PORT \(3001\) is also WEB_PORT/ },
  ])('refuses two listeners on one port, $given, rather than failing to listen with advice about the wrong variable', ({ given, want }) => {
    expect(() => readServerConfig(given)).toThrow(want);
  });

  it('lets every listener pick a free port (0) at once', () => {
    expect(readServerConfig({ PORT: '0', WEB_PORT: '0', OPS_PORT: '0' }).ops).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it('takes an empty LOG_LEVEL as unset (info), as every other variable', () => {
    expect(readServerConfig({ LOG_LEVEL: '' }).logLevel).toBe('info');
  });

  it('takes an empty HOST as unset (127.0.0.1), as every other variable, not as every interface', () => {
    expect(readServerConfig({ HOST: '' }).host).toBe('127.0.0.1');
  });

  it('refuses a HOST that resolves to no address, and takes one that does', async () => {
    await expect(checkHostResolves('999.1.1.1')).rejects.toThrow(/HOST "999.1.1.1" does not resolve to an address/);
    await expect(checkHostResolves('127.0.0.1')).resolves.toBeUndefined();
  });
});

describe('warnings', () => {
  it('names each setting that has no effect in the mode chosen', () => {
    expect(configurationWarnings({ DATABASE_POOL_SIZE: '20', CACHE_TTL_MS: '2000' }, 1000)).toEqual([
      'DATABASE_POOL_SIZE has no effect without DATABASE_URL: it sets the PostgreSQL store, and this server uses SQLite (DATABASE_PATH)',
      'CACHE_TTL_MS has no effect without DATABASE_URL: it sets the PostgreSQL store, and this server uses SQLite (DATABASE_PATH)',
    ]);
    expect(configurationWarnings({ DATABASE_URL: 'postgres://db/api', DATABASE_POOL_SIZE: '20', DATABASE_PATH: 'x.sqlite' }, 1000)).toEqual([
      'DATABASE_PATH has no effect with DATABASE_URL set: the data is in PostgreSQL',
    ]);
    expect(configurationWarnings({ OPS_HOST: '0.0.0.0' }, 1000)).toEqual([expect.stringMatching(/^OPS_HOST has no effect without OPS_PORT/)]);
    expect(configurationWarnings({}, 1000)).toEqual([]);
  });

  it.each([
    { given: { FORWARDED_HEADER: 'forwarded' }, want: /^FORWARDED_HEADER has no effect without TRUSTED_PROXIES/ },
    { given: { OTEL_SERVICE_NAME: 'lists' }, want: /^OTEL_SERVICE_NAME has no effect without OTEL_EXPORTER_OTLP_ENDPOINT/ },
  ])('warns about $given, which only matters with another setting', ({ given, want }) => {
    expect(configurationWarnings(given, 1000)).toEqual([expect.stringMatching(want)]);
  });

  it('does not warn when those settings go with what they need', () => {
    expect(configurationWarnings({ FORWARDED_HEADER: 'forwarded', TRUSTED_PROXIES: '10.0.0.1' }, 1000)).toEqual([]);
    expect(configurationWarnings({ OTEL_SERVICE_NAME: 'lists', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 1000)).toEqual([]);
  });

  it('warns about a variable no longer read, which an old deployment may still set', () => {
    expect(configurationWarnings({ FAILED_AUTH_TOTAL: '1000' }, 1000)).toEqual([expect.stringMatching(/^FAILED_AUTH_TOTAL has no effect: .*ADR 0025/)]);
  });

  it('warns when the server runs as root', () => {
    expect(configurationWarnings({}, 0)).toEqual([expect.stringMatching(/^running as root: .*run it as an account of its own/)]);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, readServerConfig, readStoreConfig } from '../../src/config/env.js';

describe('configuration from the environment', () => {
  it.each([
    { given: {}, want: 'strict' },
    { given: { NODE_ENV: 'development' }, want: 'strict' },
    { given: { NODE_ENV: 'production' }, want: 'off' },
    { given: { NODE_ENV: 'production', RESPONSE_VALIDATION: 'log' }, want: 'log' },
    { given: { RESPONSE_VALIDATION: 'off' }, want: 'off' },
  ])('response validation with $given is $want', ({ given, want }) => {
    expect(readServerConfig(given).responseValidation).toBe(want);
  });

  it('refuses an unknown response validation mode, naming the variable', () => {
    expect(() => readServerConfig({ RESPONSE_VALIDATION: 'sometimes' })).toThrow(ConfigError);
    expect(() => readServerConfig({ RESPONSE_VALIDATION: 'sometimes' })).toThrow(/RESPONSE_VALIDATION must be one of strict, log, off/);
  });

  it('gives the keys CLI the store settings alone, resolved as the server resolves them', () => {
    expect(readStoreConfig({ DATABASE_PATH: ':memory:' })).toEqual({ databasePath: ':memory:' });
    expect(readStoreConfig({ DATABASE_PATH: 'x/y.sqlite' }).databasePath).toBe(readServerConfig({ DATABASE_PATH: 'x/y.sqlite' }).databasePath);
  });
});

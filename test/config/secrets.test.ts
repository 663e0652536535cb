import { describe, expect, it } from 'vitest';
import { ConfigError, readServerConfig } from '../../src/config/env.js';
import { readSecrets, secretFileWarnings } from '../../src/config/secrets.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(44);
const files: Record<string, string> = { '/run/secrets/cursor': `${B}\n${A}\n`, '/run/secrets/empty': '\n \n' };
const readFile = (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
  return text;
};
const texts = (env: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(readSecrets(env, readFile)).map(([name, list]) => [name, list?.map(String)]));

describe('secrets from the environment and from files', () => {
  it.each([
    { given: {}, want: {} },
    { given: { CURSOR_SECRETS: A }, want: { cursor: [A] } },
    { given: { CURSOR_SECRETS: `${B}, ${A},` }, want: { cursor: [B, A] } },
    { given: { DEVICE_COOKIE_SECRETS: `${B}\n${A}` }, want: { 'device-cookies': [B, A] } },
    { given: { CURSOR_SECRETS_FILE: '/run/secrets/cursor' }, want: { cursor: [B, A] } },
    { given: { SIGN_IN_COUNTER_SECRETS: A, CURSOR_SECRETS: '' }, want: { 'failure-keys': [A] } },
  ])('$given gives $want, newest first', ({ given, want }) => {
    expect(texts(given)).toEqual(want);
  });

  it.each([
    { given: { CURSOR_SECRETS: A, CURSOR_SECRETS_FILE: '/run/secrets/cursor' }, want: 'set CURSOR_SECRETS or CURSOR_SECRETS_FILE, not both' },
    { given: { CURSOR_SECRETS_FILE: '/run/secrets/missing' }, want: 'CURSOR_SECRETS_FILE names /run/secrets/missing, which cannot be read (ENOENT)' },
    { given: { CURSOR_SECRETS_FILE: '/run/secrets/empty' }, want: 'CURSOR_SECRETS_FILE (/run/secrets/empty) holds no secret' },
    { given: { DEVICE_COOKIE_SECRETS: `${A},short-secret` }, want: 'DEVICE_COOKIE_SECRETS: secret 2 of 2 has 12 characters, fewer than 32' },
    { given: { CURSOR_SECRETS: `${A},${A}` }, want: 'CURSOR_SECRETS lists the same secret twice' },
  ])('refuses $given, without quoting a secret', ({ given, want }) => {
    let error: unknown;
    try {
      readSecrets(given, readFile);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(want);
    expect((error as Error).message).not.toContain('short-secret');
    expect((error as Error).message).not.toContain(A);
  });

  it("are part of the server's configuration", () => {
    expect(readServerConfig({ CURSOR_SECRETS: A }).secrets).toEqual({ cursor: [Buffer.from(A)] });
  });
});

describe('a secret file others may read', () => {
  it('is named in a warning with the mode and the fix; a private one, or one its group (the server’s own) reads, is not', () => {
    const stats: Record<string, { mode: number; gid: number }> = {
      '/run/secrets/cursor': { mode: 0o100644, gid: 0 },
      '/run/secrets/db': { mode: 0o100600, gid: 0 },
      '/run/secrets/pw': { mode: 0o100640, gid: 50 },
      '/run/secrets/device': { mode: 0o100440, gid: 2000 },
    };
    const env = {
      CURSOR_SECRETS_FILE: '/run/secrets/cursor',
      DATABASE_URL_FILE: '/run/secrets/db',
      DATABASE_PASSWORD_FILE: '/run/secrets/pw',
      DEVICE_COOKIE_SECRETS_FILE: '/run/secrets/device',
    };
    // The process is in group 2000 (a Kubernetes fsGroup), not in 50.
    expect(secretFileWarnings(env, (path) => stats[path], [2000])).toEqual([
      'CURSOR_SECRETS_FILE names /run/secrets/cursor, which other accounts may read (mode 644): chmod 600 it, or 400',
      'DATABASE_PASSWORD_FILE names /run/secrets/pw, which other accounts may read (mode 640): chmod 600 it, or 400',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { digestApiKey, generateApiKey } from '../../src/keys/api-key.js';
import { authenticate } from '../../src/server/bearer-key.js';
import { createTestApp } from '../helpers/app.js';
import { operationRequests } from '../helpers/spec-fixture.js';

const realm = 'Bearer realm="api"';

describe('authentication', () => {
  const cases: Array<{ given: string; header: string | undefined; challenge: string | RegExp }> = [
    { given: 'no Authorization header', header: undefined, challenge: realm },
    { given: 'another scheme', header: 'Basic dXNlcjpwYXNz', challenge: realm },
    { given: 'the scheme alone', header: 'Bearer', challenge: /error="invalid_token"/ },
    { given: 'an empty bearer token', header: 'Bearer    ', challenge: /error="invalid_token"/ },
    { given: 'a token that is not a key', header: 'Bearer hello', challenge: /error="invalid_token"/ },
    { given: 'a key with a wrong checksum', header: `Bearer ${generateApiKey().key.slice(0, -1)}x`, challenge: /error="invalid_token"/ },
    {
      given: 'a well-formed key nobody made',
      header: `Bearer ${generateApiKey().key}`,
      challenge: /error="invalid_token", error_description="The API key is unknown\.?"/,
    },
  ];

  it.each(cases)('answers $given with 401 and the RFC 6750 challenge', async ({ header, challenge }) => {
    const t = await createTestApp();
    for (const { operation, method, url } of operationRequests()) {
      const response = await t.send(method, url, {
        headers: header === undefined ? {} : { Authorization: header },
        ...(operation.requestBody && { body: {} }),
      });
      expect(response.status, `${operation.operationId} (${method} ${url})`).toBe(401);
      expect(response.json.type).toBe('urn:problem-type:unauthorized');
      if (typeof challenge === 'string') expect(response.headers.get('www-authenticate')).toBe(challenge);
      else expect(response.headers.get('www-authenticate')).toMatch(challenge);
    }
  });

  it('accepts the scheme in any case and extra spaces before the token', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    for (const header of [`bearer ${key}`, `BEARER ${key}`, `Bearer   ${key}`]) {
      expect((await t.send('GET', '/shared', { headers: { Authorization: header } })).status, header).toBe(200);
    }
  });

  it('ignores a key in the query string', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const response = await t.send('GET', `/shared?access_token=${key}`);
    expect(response.status).toBe(401);
  });

  it('stops accepting a revoked key on the next request', async () => {
    const t = await createTestApp();
    const { key, keyId } = await t.addUser('ann');
    expect((await t.send('POST', '/', { key, body: {} })).status).toBe(200);
    expect(await t.store.revokeKey(keyId, new Date(t.clock.now).toISOString())).toBe(true);
    const response = await t.send('POST', '/', { key, body: {} });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('records last use at most once a minute per key, not on every request', async () => {
    const t = await createTestApp();
    const { key, keyId, user } = await t.addUser('ann');
    const lastUsed = async () => (await t.store.listKeys(user.id)).find((summary) => summary.id === keyId)?.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await t.send('POST', '/', { key, body: {} });
    const first = await lastUsed();
    expect(first).toBe(new Date(t.clock.now).toISOString());
    t.clock.now += 30_000;
    await t.send('POST', '/', { key, body: {} });
    expect(await lastUsed()).toBe(first);
    t.clock.now += 30_000;
    await t.send('POST', '/', { key, body: {} });
    expect(await lastUsed()).toBe(new Date(t.clock.now).toISOString());
  });

  it('checks authentication before the body, so a stranger learns nothing about validation', async () => {
    const t = await createTestApp();
    const response = await t.send('POST', '/', { headers: { 'Content-Type': 'text/plain' }, rawBody: 'not json' });
    expect(response.status).toBe(401);
  });

  it('stores keys only as SHA-256 digests', () => {
    const { key, digest } = generateApiKey();
    expect(digest).toEqual(digestApiKey(key));
    expect(digest.toString('utf8')).not.toContain(key);
  });
});

describe('authentication on a kept-alive connection (the digest of the last key is kept with the connection)', () => {
  const rejects = (promise: Promise<unknown>) => expect(promise).rejects.toMatchObject({ status: 401 });

  it('authenticates each request as the key it carries when a client switches keys on one connection', async () => {
    const t = await createTestApp();
    const [ann, bob] = [await t.addUser('ann'), await t.addUser('bob')];
    const connection = {};
    for (const { user, key } of [ann, bob, ann]) {
      expect(await authenticate(`Bearer ${key}`, t.store, t.clock.now, { connection })).toMatchObject({ userId: user.id });
    }
  });

  it('reads a different header afresh: a made-up key or another scheme after a good key is refused', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const connection = {};
    await authenticate(`Bearer ${key}`, t.store, t.clock.now, { connection });
    // The last character changed (to one it is not), so the checksum fails.
    await rejects(authenticate(`Bearer ${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`, t.store, t.clock.now, { connection }));
    await rejects(authenticate(`Basic ${key}`, t.store, t.clock.now, { connection }));
    await rejects(authenticate(undefined, t.store, t.clock.now, { connection }));
  });

  it('still looks the key up on every request: a key revoked between two requests on one connection is refused', async () => {
    const t = await createTestApp();
    const { key, keyId } = await t.addUser('ann');
    const connection = {};
    await authenticate(`Bearer ${key}`, t.store, t.clock.now, { connection });
    await t.store.revokeKey(keyId, new Date(t.clock.now).toISOString());
    await rejects(authenticate(`Bearer ${key}`, t.store, t.clock.now, { connection }));
  });

  it('gives admit the digest on every request, so the failed-authentication budgets still see the key', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('ann');
    const connection = {};
    const seen: Array<Buffer | undefined> = [];
    for (let i = 0; i < 2; i++) await authenticate(`Bearer ${key}`, t.store, t.clock.now, { connection, admit: (digest) => seen.push(digest) });
    expect(seen).toEqual([digestApiKey(key), digestApiKey(key)]);
  });
});

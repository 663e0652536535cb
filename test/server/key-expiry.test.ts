import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { createTestApp } from '../helpers/app.js';

const MINUTE = 60_000;

describe('expiring keys on the public API', () => {
  it('accepts a key until its expiry, then answers 401 saying it expired, and records the expiry once', async () => {
    const t = await createTestApp();
    const { user } = await t.addUser('ann');
    const { key, digest, hint } = generateApiKey();
    const expiresAt = new Date(t.clock.now + 10 * MINUTE).toISOString();
    const summary = await t.store.createKey(user.id, digest, hint, new Date(t.clock.now).toISOString(), { name: 'soon', expiresAt, source: 'web' });

    t.clock.now += MINUTE;
    expect((await t.send('POST', '/', { key, body: {} })).status).toBe(200);
    t.clock.now += 9 * MINUTE;
    for (const attempt of [1, 2]) {
      const response = await t.send('POST', '/', { key, body: {} });
      expect(response.status, `attempt ${attempt}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer realm="api", error="invalid_token", error_description="The API key expired at ${expiresAt}."`,
      );
      expect(response.json.detail).toBe(`The API key expired at ${expiresAt}.`);
    }
    const events = await t.store.listKeyEvents(user.id, { limit: 10 });
    expect(events.filter((event) => event.keyId === summary.id).map((event) => [event.type, event.source, event.at])).toEqual([
      ['expired', 'system', expiresAt],
      ['first_used', 'api', new Date(t.clock.now - 9 * MINUTE).toISOString()],
      ['created', 'web', summary.createdAt],
    ]);
  });

  it('says a revoked key was revoked and an unknown key is unknown', async () => {
    const t = await createTestApp();
    const { key, keyId } = await t.addUser('ann');
    await t.store.revokeKey(keyId, new Date(t.clock.now).toISOString());
    expect((await t.send('POST', '/', { key, body: {} })).headers.get('www-authenticate')).toContain('error_description="The API key has been revoked."');
    expect((await t.send('POST', '/', { key: generateApiKey().key, body: {} })).headers.get('www-authenticate')).toContain(
      'error_description="The API key is unknown."',
    );
  });

  it('keeps a rolled key working through its overlap, then names the roll', async () => {
    const t = await createTestApp();
    const { user, key, keyId } = await t.addUser('ann');
    const next = generateApiKey();
    const at = new Date(t.clock.now).toISOString();
    const overlapEnd = new Date(t.clock.now + 60 * MINUTE).toISOString();
    const rolled = await t.store.rollKey({
      userId: user.id,
      keyId,
      at,
      previousExpiresAt: overlapEnd,
      next: { digest: next.digest, hint: next.hint, expiresAt: new Date(t.clock.now + 30 * 24 * 60 * MINUTE).toISOString() },
      source: 'web',
    });
    expect(rolled?.previous).toMatchObject({ id: keyId, rolledAt: at, replacedBy: rolled?.next.id, expiresAt: overlapEnd });
    expect((await t.send('POST', '/', { key, body: {} })).status).toBe(200);
    expect((await t.send('POST', '/', { key: next.key, body: {} })).status).toBe(200);
    t.clock.now += 60 * MINUTE;
    const old = await t.send('POST', '/', { key, body: {} });
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toContain(
      `error_description="The API key was rolled; its overlap ended at ${overlapEnd}. Use the key that replaced it."`,
    );
    expect((await t.send('POST', '/', { key: next.key, body: {} })).status).toBe(200);
  });
});

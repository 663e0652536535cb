import { describe, expect, it } from 'vitest';
import { readLimits } from '../../src/contract/limits.js';
import { accountPresets } from '../../src/contract/presets.js';
import { accountSpec, cookieOf, createTestWebApp, PASSWORD } from '../helpers/web-app.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// What the account spec decides, read from it, so that an edit of the presets or the cap leaves these tests green.
const EXPIRIES = accountPresets(accountSpec).expiresInDays;
/** The shortest expiry preset, the key that expires first; a longer one, and the longest. */
const SHORTEST = EXPIRIES.values[0] as number;
const LONGER = EXPIRIES.values.find((days) => days > SHORTEST) ?? SHORTEST;
const LONGEST = EXPIRIES.values.at(-1) as number;
/** A number of days between the presets that is none of them. */
const BETWEEN =
  Array.from({ length: LONGEST - SHORTEST }, (_, index) => SHORTEST + index).find((days) => !(EXPIRIES.values as readonly number[]).includes(days)) ??
  LONGEST + 1;
const ACTIVE_KEYS = readLimits(accountSpec, 'account').keys.activePerUser;
const OVERLAPS = accountPresets(accountSpec).overlapHours;
/** The shortest overlap that keeps the old key working for a while. */
const OVERLAP = OVERLAPS.values.find((hours) => hours > 0) as number;

/**
 * A signed-up user. `later(ms)` moves the clock on and signs in again, as a
 * person coming back after their session idled out would.
 */
async function withUser(name = 'ada') {
  const t = await createTestWebApp();
  const signedUp = await t.signUp(name);
  let cookie = signedUp.cookie;
  return {
    ...t,
    userId: signedUp.userId,
    get cookie() {
      return cookie;
    },
    create: (body: Record<string, unknown>) => t.send('POST', '/api/keys', { cookie, body }),
    async later(ms: number) {
      t.clock.now += ms;
      cookie = cookieOf(await t.send('POST', '/api/session', { body: { name, password: PASSWORD } }));
    },
  };
}

describe('generating a key', () => {
  it('answers 201 with the secret once, no-store, the default expiry; lists show the hint, never the secret', async () => {
    const t = await withUser();
    const created = await t.create({ name: 'CI pipeline' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.json.secret).toMatch(/^tka_[0-9A-Za-z]{38}$/);
    expect(created.json.key).toMatchObject({
      name: 'CI pipeline',
      status: 'active',
      hint: `tka_…${created.json.secret.slice(-4)}`,
      expiresAt: new Date(t.clock.now + EXPIRIES.default * DAY).toISOString(),
      lastUsedAt: null,
    });
    const listed = await t.send('GET', '/api/keys', { cookie: t.cookie });
    expect(listed.json.keys).toEqual([created.json.key]);
    expect(listed.text).not.toContain(created.json.secret);
    expect((await t.callPublicApi(created.json.secret)).status).toBe(200);
  });

  it.each([
    { given: 'no name', body: {}, pointer: '/name' },
    { given: 'a blank name', body: { name: '   ' }, pointer: '/name' },
    { given: 'an expiry outside the presets', body: { name: 'x', expiresInDays: BETWEEN }, pointer: '/expiresInDays' },
    { given: 'an expiry past the maximum', body: { name: 'x', expiresInDays: LONGEST * 2 }, pointer: '/expiresInDays' },
    { given: 'an unknown field', body: { name: 'x', scopes: ['all'] }, pointer: '/scopes' },
  ])('refuses $given with 422 at $pointer', async ({ body, pointer }) => {
    const t = await withUser();
    const response = await t.create(body);
    expect(response.status).toBe(422);
    expect(response.json.errors).toEqual([expect.objectContaining({ in: 'body', pointer })]);
  });

  it('takes each expiry preset', async () => {
    const t = await withUser();
    for (const days of accountPresets().expiresInDays.values) {
      const created = await t.create({ name: `${days} days`, expiresInDays: days });
      expect(created.json.key.expiresAt).toBe(new Date(t.clock.now + days * DAY).toISOString());
    }
  });

  it('stops at the most active keys a user may have with 409, and counts neither revoked nor expired ones', async () => {
    const t = await withUser();
    const keys = [];
    for (let index = 0; index < ACTIVE_KEYS; index++)
      keys.push((await t.create({ name: `key ${index}`, expiresInDays: index === 0 ? SHORTEST : LONGER })).json.key);
    expect((await t.create({ name: 'one too many' })).status).toBe(409);
    await t.send('POST', `/api/keys/${keys[5].id}/revoke`, { cookie: t.cookie });
    expect((await t.create({ name: 'after a revoke' })).status).toBe(201);
    expect((await t.create({ name: 'full again' })).status).toBe(409);
    await t.later(SHORTEST * DAY);
    expect((await t.create({ name: 'after an expiry' })).status).toBe(201);
  });

  it('counts creates sent at once against the cap: five more than it allows, those five refused with 409', async () => {
    const t = await withUser();
    const statuses = await Promise.all(
      Array.from({ length: ACTIVE_KEYS + 5 }, (_, index) => t.create({ name: `at once ${index}` }).then((response) => response.status)),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(ACTIVE_KEYS);
    expect(statuses.filter((status) => status === 409)).toHaveLength(5);
    expect(await t.store.countActiveKeys(t.userId, new Date(t.clock.now).toISOString())).toBe(ACTIVE_KEYS);
  });

  it('shows an expired key as expired; the public API refuses it saying so', async () => {
    const t = await withUser();
    const created = await t.create({ name: 'short', expiresInDays: SHORTEST });
    await t.later(SHORTEST * DAY);
    const listed = await t.send('GET', '/api/keys', { cookie: t.cookie });
    expect(listed.json.keys[0]).toMatchObject({ status: 'expired' });
    const refused = await t.callPublicApi(created.json.secret);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`error_description="The API key expired at ${created.json.key.expiresAt}."`);
  });
});

describe('revoking a key', () => {
  it('answers the revoked key; the public API refuses it on the next request; revoking again changes nothing', async () => {
    const t = await withUser();
    const created = await t.create({ name: 'laptop' });
    expect((await t.callPublicApi(created.json.secret)).status).toBe(200);
    await t.later(HOUR);
    const revoked = await t.send('POST', `/api/keys/${created.json.key.id}/revoke`, { cookie: t.cookie });
    expect(revoked.json).toMatchObject({ id: created.json.key.id, status: 'revoked', revokedAt: new Date(t.clock.now).toISOString() });
    const refused = await t.callPublicApi(created.json.secret);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error_description="The API key has been revoked."');
    await t.later(HOUR);
    const again = await t.send('POST', `/api/keys/${created.json.key.id}/revoke`, { cookie: t.cookie });
    expect(again.json).toEqual(revoked.json);
  });
});

describe('rolling a key', () => {
  it('makes a new key of the same name; the old one works through the chosen overlap, then gets 401', async () => {
    const t = await withUser();
    const created = await t.create({ name: 'deploy bot' });
    await t.later(HOUR);
    const rolled = await t.send('POST', `/api/keys/${created.json.key.id}/roll`, { cookie: t.cookie, body: { overlapHours: OVERLAP, expiresInDays: LONGEST } });
    expect(rolled.status).toBe(201);
    expect(rolled.headers.get('cache-control')).toBe('no-store');
    expect(rolled.json.key).toMatchObject({ name: 'deploy bot', status: 'active', expiresAt: new Date(t.clock.now + LONGEST * DAY).toISOString() });
    expect(rolled.json.previous).toMatchObject({
      id: created.json.key.id,
      status: 'active',
      rolledAt: new Date(t.clock.now).toISOString(),
      replacedBy: rolled.json.key.id,
      expiresAt: new Date(t.clock.now + OVERLAP * HOUR).toISOString(),
    });
    expect(rolled.json.secret).not.toBe(created.json.secret);
    const listed = await t.send('GET', '/api/keys', { cookie: t.cookie });
    expect(
      listed.json.keys.map((key: { id: string }) => key.id),
      'newest first',
    ).toEqual([rolled.json.key.id, created.json.key.id]);
    expect((await t.callPublicApi(created.json.secret)).status).toBe(200);
    expect((await t.callPublicApi(rolled.json.secret)).status).toBe(200);
    await t.later(OVERLAP * HOUR);
    const old = await t.callPublicApi(created.json.secret);
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toContain('The API key was rolled');
    expect((await t.callPublicApi(rolled.json.secret)).status).toBe(200);
  });

  it('defaults to the default overlap; 0 stops the old key at once', async () => {
    const t = await withUser();
    const a = await t.create({ name: 'a' });
    const b = await t.create({ name: 'b' });
    const rolledA = await t.send('POST', `/api/keys/${a.json.key.id}/roll`, { cookie: t.cookie, body: {} });
    expect(rolledA.json.previous.expiresAt).toBe(new Date(t.clock.now + OVERLAPS.default * HOUR).toISOString());
    const rolledB = await t.send('POST', `/api/keys/${b.json.key.id}/roll`, { cookie: t.cookie, body: { overlapHours: 0 } });
    expect(rolledB.json.previous.status).toBe('expired');
    expect((await t.callPublicApi(b.json.secret)).status).toBe(401);
  });

  it('refuses with 409 to roll a key twice, a revoked key or an expired one', async () => {
    const t = await withUser();
    const twice = await t.create({ name: 'twice', expiresInDays: LONGER });
    await t.send('POST', `/api/keys/${twice.json.key.id}/roll`, { cookie: t.cookie, body: {} });
    const revoked = await t.create({ name: 'revoked', expiresInDays: LONGER });
    await t.send('POST', `/api/keys/${revoked.json.key.id}/revoke`, { cookie: t.cookie });
    const expired = await t.create({ name: 'expired', expiresInDays: SHORTEST });
    await t.later(SHORTEST * DAY);
    for (const [key, detail] of [
      [twice, 'rolled already'],
      [revoked, 'revoked'],
      [expired, 'expired'],
    ] as const) {
      const response = await t.send('POST', `/api/keys/${key.json.key.id}/roll`, { cookie: t.cookie, body: {} });
      expect(response.status).toBe(409);
      expect(response.json.detail).toContain(detail);
    }
  });
});

type Listed = { id: string; name: string; status: string };

/** Every key of the list, page after page, as a client pages it. */
async function allPages(t: Awaited<ReturnType<typeof withUser>>, limit: number): Promise<{ keys: Listed[]; pages: Listed[][] }> {
  const pages: Listed[][] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=${limit}&cursor=${cursor}` : `?limit=${limit}`;
    const page = await t.send('GET', `/api/keys${query}`, { cookie: t.cookie });
    expect(page.status, page.text).toBe(200);
    expect(page.json.keys.length).toBeLessThanOrEqual(limit);
    pages.push(page.json.keys);
    cursor = page.json.nextCursor;
  } while (cursor && pages.length < 1_000);
  return { keys: pages.flat(), pages };
}

describe('the key list', () => {
  it('lists an active key first, however many keys were made and revoked after it (100 create-and-revoke cycles)', async () => {
    const t = await withUser();
    const old = await t.create({ name: 'old but active' });
    for (let cycle = 0; cycle < 100; cycle++) {
      t.clock.now += 1_000;
      const made = await t.create({ name: `cycle ${cycle}` });
      await t.send('POST', `/api/keys/${made.json.key.id}/revoke`, { cookie: t.cookie });
    }
    const listed = await t.send('GET', '/api/keys', { cookie: t.cookie });
    expect(listed.json.keys[0]).toMatchObject({ id: old.json.key.id, status: 'active' });
    expect(listed.json.keys).toHaveLength(100);
    expect(listed.json.nextCursor).toEqual(expect.any(String));
    const revoke = await t.send('POST', `/api/keys/${old.json.key.id}/revoke`, { cookie: t.cookie });
    expect(revoke.status).toBe(200);
  });

  it('puts every active key before every revoked or expired one, each group newest first, and pages through all of them once', async () => {
    const t = await withUser();
    const made: Record<string, string> = {};
    for (const [name, days] of [
      ['expires soon', SHORTEST],
      ['revoked', LONGER],
      ['active a', LONGER],
      ['rolled', LONGER],
      ['active b', LONGEST],
    ] as const) {
      t.clock.now += 1_000;
      made[name] = (await t.create({ name, expiresInDays: days })).json.key.id;
    }
    await t.send('POST', `/api/keys/${made['revoked']}/revoke`, { cookie: t.cookie });
    t.clock.now += 1_000;
    // The new key outlives the shortest expiry, whichever preset is the default.
    const rolled = await t.send('POST', `/api/keys/${made['rolled']}/roll`, { cookie: t.cookie, body: { overlapHours: OVERLAP, expiresInDays: LONGER } });
    await t.later(SHORTEST * DAY);
    const { keys } = await allPages(t, 2);
    expect(keys.map((key) => [key.name, key.status, key.id === rolled.json.key.id ? 'new' : ''])).toEqual([
      ['rolled', 'active', 'new'],
      ['active b', 'active', ''],
      ['active a', 'active', ''],
      ['rolled', 'expired', ''],
      ['revoked', 'revoked', ''],
      ['expires soon', 'expired', ''],
    ]);
    const whole = await t.send('GET', '/api/keys', { cookie: t.cookie });
    expect(whole.json).toEqual({ keys: expect.any(Array), nextCursor: null });
    expect(whole.json.keys.map((key: Listed) => key.id)).toEqual(keys.map((key) => key.id));
  });

  it('keeps its order while a key expires between two pages: none is skipped, none comes twice', async () => {
    const t = await withUser();
    for (const days of [SHORTEST, LONGER, LONGER, LONGER]) {
      t.clock.now += 1_000;
      await t.create({ name: `${days} days`, expiresInDays: days });
    }
    const first = await t.send('GET', '/api/keys?limit=2', { cookie: t.cookie });
    await t.later(SHORTEST * DAY);
    const rest = await t.send('GET', `/api/keys?limit=2&cursor=${first.json.nextCursor}`, { cookie: t.cookie });
    const ids = [...first.json.keys, ...rest.json.keys].map((key: Listed) => key.id);
    expect(new Set(ids).size).toBe(4);
    expect(rest.json.nextCursor).toBeNull();
  });

  it('removes a revoked or an expired key from the list (204) and keeps its events; an active key is refused with 409', async () => {
    const t = await withUser();
    const active = await t.create({ name: 'still works', expiresInDays: LONGER });
    const revoked = await t.create({ name: 'revoked', expiresInDays: LONGER });
    const expired = await t.create({ name: 'expired', expiresInDays: SHORTEST });
    await t.send('POST', `/api/keys/${revoked.json.key.id}/revoke`, { cookie: t.cookie });
    await t.later(SHORTEST * DAY);
    const refused = await t.send('DELETE', `/api/keys/${active.json.key.id}`, { cookie: t.cookie });
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain('revoke it');
    for (const key of [revoked, expired]) expect((await t.send('DELETE', `/api/keys/${key.json.key.id}`, { cookie: t.cookie })).status).toBe(204);
    const listed = await t.send('GET', '/api/keys', { cookie: t.cookie });
    expect(listed.json.keys.map((key: Listed) => key.id)).toEqual([active.json.key.id]);
    const events = await t.send('GET', '/api/key-events', { cookie: t.cookie });
    expect(events.json.events.map((event: { keyId: string; type: string }) => `${event.type} ${event.keyId}`)).toEqual(
      expect.arrayContaining([`revoked ${revoked.json.key.id}`, `expired ${expired.json.key.id}`, `created ${expired.json.key.id}`]),
    );
    // A removed key is gone for its owner: every operation on it answers 404; the public API still refuses it.
    for (const [method, path] of [
      ['DELETE', ''],
      ['POST', '/revoke'],
      ['POST', '/roll'],
    ] as const) {
      const response = await t.send(method, `/api/keys/${revoked.json.key.id}${path}`, { cookie: t.cookie, ...(path === '/roll' && { body: {} }) });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.callPublicApi(revoked.json.secret)).status).toBe(401);
  });

  it('refuses a cursor that is not one with 422 in the query', async () => {
    const t = await withUser();
    for (const cursor of ['bm90LWEtY3Vyc29y', Buffer.from('0|1|0|key_0000000000000000').toString('base64url')]) {
      const response = await t.send('GET', `/api/keys?cursor=${cursor}`, { cookie: t.cookie });
      expect(response.status).toBe(422);
      expect(response.json.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '/cursor' })]);
    }
  });
});

describe('two users', () => {
  it('each see and act on their own keys only: the other user gets 404, as for a key that does not exist', async () => {
    const t = await createTestWebApp();
    const ada = await t.signUp('ada');
    const bob = await t.signUp('bob');
    const adaKey = await t.send('POST', '/api/keys', { cookie: ada.cookie, body: { name: 'ada only' } });
    expect((await t.send('GET', '/api/keys', { cookie: bob.cookie })).json.keys).toEqual([]);
    expect((await t.send('GET', '/api/key-events', { cookie: bob.cookie })).json.events).toEqual([]);
    const nobody = 'key_0000000000000000';
    for (const id of [adaKey.json.key.id, nobody]) {
      const revoke = await t.send('POST', `/api/keys/${id}/revoke`, { cookie: bob.cookie });
      const roll = await t.send('POST', `/api/keys/${id}/roll`, { cookie: bob.cookie, body: {} });
      const remove = await t.send('DELETE', `/api/keys/${id}`, { cookie: bob.cookie });
      expect([revoke.status, roll.status, remove.status]).toEqual([404, 404, 404]);
      expect(revoke.json.detail).toBe('You have no API key with this id.');
    }
    expect((await t.callPublicApi(adaKey.json.secret)).status).toBe(200);
    expect((await t.send('GET', '/api/keys', { cookie: ada.cookie })).json.keys).toEqual([expect.objectContaining({ status: 'active' })]);
  });
});

describe('key events', () => {
  it('record created, first used, rolled, revoked and expired, newest first, and page with a cursor', async () => {
    const t = await withUser();
    const a = await t.create({ name: 'a', expiresInDays: SHORTEST });
    await t.later(HOUR);
    await t.callPublicApi(a.json.secret);
    await t.later(HOUR);
    const rolled = await t.send('POST', `/api/keys/${a.json.key.id}/roll`, { cookie: t.cookie, body: { overlapHours: OVERLAP } });
    await t.later((OVERLAP + 1) * HOUR);
    await t.send('POST', `/api/keys/${rolled.json.key.id}/revoke`, { cookie: t.cookie });
    const all = await t.send('GET', '/api/key-events', { cookie: t.cookie });
    expect(
      all.json.events.map((event: { type: string; keyId: string; source: string }) => [
        event.type,
        event.keyId === a.json.key.id ? 'old' : 'new',
        event.source,
      ]),
    ).toEqual([
      ['revoked', 'new', 'web'],
      ['expired', 'old', 'system'],
      expect.arrayContaining([expect.stringMatching(/rolled|created/)]),
      expect.arrayContaining([expect.stringMatching(/rolled|created/)]),
      ['first_used', 'old', 'api'],
      ['created', 'old', 'web'],
    ]);
    expect(all.json.nextCursor).toBeNull();
    const seen = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const page = await t.send('GET', `/api/key-events${query}`, { cookie: t.cookie });
      expect(page.json.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.events);
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.json.events);
  });

  it('refuses a cursor that is not one with 422 in the query', async () => {
    const t = await withUser();
    const response = await t.send('GET', '/api/key-events?cursor=bm90LWEtY3Vyc29y', { cookie: t.cookie });
    expect(response.status).toBe(422);
    expect(response.json.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '/cursor' })]);
  });
});

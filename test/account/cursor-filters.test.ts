/**
 * Issue 35, item 4: the account API's cursors are bound to the query they were made with (the spec's `KeyCursor` and
 * `EventCursor`): every parameter but `cursor` and `limit`. Neither list has a filter yet, so the binding is held here
 * on the cursors themselves and on the app with a cursor made for a filter it was not sent with.
 */
import { describe, expect, it } from 'vitest';
import { decodeEventCursor, decodeKeyCursor, encodeEventCursor, encodeKeyCursor } from '../../src/account/cursors.js';
import { createTestWebApp } from '../helpers/web-app.js';

const position = { asOf: '2026-01-01T00:00:00.000Z', active: true, createdAt: '2026-01-01T00:00:00.000Z', id: 'key_0000000000000001' };
const event = { at: '2026-01-01T00:00:00.000Z', id: 'evt_0000000000000001' };

describe("the account API's cursors and the filters of their list", () => {
  it('continue only the filters they were made with, whatever the page size', () => {
    const keys = encodeKeyCursor(position, { limit: 1, status: 'active' });
    expect(decodeKeyCursor(keys, { limit: 50, status: 'active', cursor: keys })).toEqual(position);
    for (const other of [{ limit: 1 }, { limit: 1, status: 'revoked' }, { status: 'active', source: 'web' }])
      expect(decodeKeyCursor(keys, other)).toBeUndefined();
    const events = encodeEventCursor(event, { source: 'web' });
    expect(decodeEventCursor(events, { source: 'web', limit: 3 })).toEqual(event);
    expect(decodeEventCursor(events, {})).toBeUndefined();
    expect(decodeEventCursor(encodeEventCursor(event, {}), { source: 'web' })).toBeUndefined();
  });

  it('without filters are what they were before filters bound them: cursors in flight across an upgrade still work', () => {
    expect(Buffer.from(encodeKeyCursor(position, { limit: 2 }), 'base64url').toString()).toBe(`${position.asOf}|1|${position.createdAt}|${position.id}`);
    expect(Buffer.from(encodeEventCursor(event, { limit: 2 }), 'base64url').toString()).toBe(`${event.at}|${event.id}`);
  });

  it('are refused by the app with 422 at /cursor when made for a filter the request does not send, and continue with another limit', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('cursor-filters');
    for (const name of ['one', 'two', 'three']) expect((await t.send('POST', '/api/keys', { cookie, body: { name } })).status).toBe(201);
    const first = await t.send('GET', '/api/keys?limit=1', { cookie });
    const cursor = first.json.nextCursor as string;
    expect((await t.send('GET', `/api/keys?limit=2&cursor=${cursor}`, { cookie })).status).toBe(200);
    const decoded = decodeKeyCursor(cursor, {});
    expect(decoded).toBeDefined();
    const filtered = encodeKeyCursor(decoded!, { status: 'active' });
    const refused = await t.send('GET', `/api/keys?limit=1&cursor=${filtered}`, { cookie });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ type: 'urn:problem-type:validation-failed', errors: [{ in: 'query', pointer: '/cursor' }] });
    const events = await t.send('GET', '/api/key-events?limit=1', { cookie });
    const eventCursor = decodeEventCursor(events.json.nextCursor as string, {});
    expect(eventCursor).toBeDefined();
    expect((await t.send('GET', `/api/key-events?cursor=${encodeEventCursor(eventCursor!, { source: 'web' })}`, { cookie })).status).toBe(422);
  });
});

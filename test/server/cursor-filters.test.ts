/**
 * Issue 35, item 4: a list's cursor is bound to the filters it was made with (the spec's `Cursor`). A cursor made for
 * `tag=urgent` continued an unfiltered list; now it is refused with the same `422` as any cursor of another list.
 * The public API has no filter yet, so the app is built on a copy of the spec whose `ListRequest` has one, as a
 * developer adds it (`nine-edits.slow.test.ts`, edit 1): the handlers bind it without knowing its name.
 */
import { describe, expect, it } from 'vitest';
import { deref, type JsonObject, loadSpec } from '../../src/contract/spec.js';
import { compileRequestContract } from '../../src/http/request-contract.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { createApp } from '../../src/server/app.js';
import { CursorCodec } from '../../src/server/cursor.js';
import { openStore } from '../../src/store/open-store.js';

const codec = new CursorCodec(Buffer.alloc(32, 7));
const list = { scope: 'own', userId: 'usr_aaaaaaaaaaaaaaaa', sort: 'asc' } as const;
const after = { createdAt: '2026-01-01T00:00:00.000Z', id: 'itm_aaaaaaaaaaaaaaaa' };
const payloadOf = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;

describe('a cursor and the filters of its list', () => {
  it('is refused with other filters, or without the ones it was made with, naming why', () => {
    const cursor = codec.encode({ ...list, options: { sort: 'asc', limit: 2, tag: 'urgent' }, after });
    const refused = { ok: false, reason: 'was issued for other filters; send the same filters as the first page' };
    expect(codec.decode(cursor, { ...list, options: { sort: 'asc', limit: 2 } })).toEqual(refused);
    expect(codec.decode(cursor, { ...list, options: { sort: 'asc', limit: 2, tag: 'later' } })).toEqual(refused);
    expect(codec.decode(cursor, { ...list, options: { sort: 'asc', limit: 2, tag: 'urgent', owner: 'me' } })).toEqual(refused);
    // Made without filters, sent with one.
    const plain = codec.encode({ ...list, options: { sort: 'asc', limit: 2 }, after });
    expect(codec.decode(plain, { ...list, options: { sort: 'asc', tag: 'urgent' } })).toEqual(refused);
  });

  it('continues the same filters in any order, with any page size, whichever way they travelled', () => {
    const cursor = codec.encode({ ...list, options: { sort: 'asc', limit: 2, tag: 'urgent', size: 3, labels: ['a', 'b'] }, after });
    expect(codec.decode(cursor, { ...list, options: { labels: ['a', 'b'], size: 3, tag: 'urgent', cursor: 'x', limit: 50, sort: 'asc' } })).toEqual({
      ok: true,
      after,
    });
    expect(codec.decode(cursor, { ...list, options: { sort: 'asc', tag: 'urgent', size: 3, labels: ['b', 'a'] } })).toMatchObject({ ok: false });
    // A value is told from a name: `ab=c` is not `a=bc`.
    const split = codec.encode({ ...list, options: { ab: 'c' }, after });
    expect(codec.decode(split, { ...list, options: { a: 'bc' } })).toMatchObject({ ok: false });
  });

  it('without filters is what it was before filters bound cursors, so cursors in flight across an upgrade still work', () => {
    const cursor = codec.encode({ ...list, options: { sort: 'asc', limit: 2 }, after });
    expect(payloadOf(cursor)).toEqual({ s: 'own', u: list.userId, o: 'asc', c: after.createdAt, i: after.id });
    expect(codec.decode(codec.encode({ ...list, after }), { ...list, options: { sort: 'asc', limit: 9 } })).toEqual({ ok: true, after });
  });

  it('holds the filters as a short digest: a long filter value does not lengthen it', () => {
    const short = codec.encode({ ...list, options: { tag: 'a' }, after });
    const long = codec.encode({ ...list, options: { tag: 'a'.repeat(400) }, after });
    expect(Math.abs(long.length - short.length)).toBeLessThanOrEqual(8);
  });
});

/** The project's spec with an optional `tag` filter on every list's body, as a developer adds one. */
function specWithTag() {
  const spec = structuredClone(loadSpec());
  const listRequest = deref(spec, { $ref: '#/components/schemas/ListRequest' }) as { properties: JsonObject };
  listRequest.properties['tag'] = { type: 'string', description: 'Only items with this tag.', minLength: 1, maxLength: 50, pattern: '^[a-z]+$' };
  return spec;
}

describe('the server with a filter added to the spec', async () => {
  const store = await openStore({ databasePath: ':memory:' });
  const app = createApp({ store, contract: compileRequestContract(specWithTag()), logger: { info: () => undefined, error: () => undefined } });
  const user = await store.createUser('cursor-filters', '2026-01-01T00:00:00.000Z');
  const { key, digest, hint } = generateApiKey();
  await store.createKey(user.id, digest, hint, '2026-01-01T00:00:00.000Z');
  for (let index = 0; index < 3; index++) await store.createItem(user.id, `Item ${index}`, new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString());
  const list = async (body: JsonObject) => {
    const response = await app.request('/', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as JsonObject };
  };

  it('refuses the cursor of tag=urgent on the unfiltered list and on tag=later with 422 on /cursor, and continues tag=urgent', async () => {
    const first = await list({ tag: 'urgent', limit: 1 });
    expect(first.status).toBe(200);
    const cursor = first.json['nextCursor'] as string;
    expect(cursor).toEqual(expect.any(String));
    for (const other of [{ cursor }, { cursor, tag: 'later' }]) {
      const refused = await list(other);
      expect(refused.status, JSON.stringify(refused.json)).toBe(422);
      expect(refused.json).toMatchObject({
        type: 'urn:problem-type:validation-failed',
        errors: [{ in: 'body', pointer: '/cursor', detail: 'was issued for other filters; send the same filters as the first page' }],
      });
    }
    expect((await list({ cursor, tag: 'urgent', limit: 5 })).status).toBe(200);
  });
});

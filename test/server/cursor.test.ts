import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deref, loadSpec } from '../../src/contract/spec.js';
import type { Sort } from '../../src/contract/types.js';
import { boundOptionsDigest } from '../../src/http/list-options.js';
import { CursorCodec } from '../../src/server/cursor.js';
import type { ListScope } from '../../src/store/store.js';
import { SORT } from '../helpers/spec-fixture.js';

const secret = Buffer.alloc(32, 7);
const codec = new CursorCodec(secret);
const expected = { scope: 'own', userId: 'usr_aaaaaaaaaaaaaaaa', sort: SORT.default } as const;

/** A cursor signed with the service's secret around any payload, as a leaked or rotated secret would allow. */
function signed(payload: string): string {
  const body = Buffer.from(payload).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest().subarray(0, 16).toString('base64url')}`;
}

describe('cursors', () => {
  it.each(SORT.values)('round-trip for the list, caller and order they were made for (sort=%s)', (sort) => {
    const after = { createdAt: '2026-01-01T00:00:00.000Z', id: 'itm_aaaaaaaaaaaaaaaa' };
    const cursor = codec.encode({ ...expected, sort, after });
    expect(codec.decode(cursor, { ...expected, sort })).toEqual({ ok: true, after });
    // Every other order the spec has, and one it does not (a cursor from when it had another value).
    for (const other of SORT.values.filter((value) => value !== sort))
      expect(codec.decode(cursor, { ...expected, sort: other })).toMatchObject({
        ok: false,
        reason: `was issued for sort=${sort}; send the same sort as the first page`,
      });
    const unknown = signed(JSON.stringify({ s: expected.scope, u: expected.userId, o: `not-${sort}`, c: after.createdAt, i: after.id }));
    expect(codec.decode(unknown, { ...expected, sort })).toEqual({
      ok: false,
      reason: `was issued for sort=not-${sort}; send the same sort as the first page`,
    });
  });

  it.each(['null', '5', '"text"', '[]', 'true', `{"s":"own","u":"usr_aaaaaaaaaaaaaaaa","o":${JSON.stringify(SORT.default)},"c":5,"i":null}`])(
    'refuse a correctly signed payload of another shape (%s) instead of failing',
    (payload) => {
      expect(codec.decode(signed(payload), expected)).toEqual({ ok: false, reason: 'is not a cursor this service issued' });
    },
  );

  it("fit the spec's Cursor: the longest one the server can make, from the longest ids, time and sort the spec allows", () => {
    // A third trial of issue 24: Cursor.maxLength cut below the server's own cursors compiled and passed check, and every
    // page with a next one was a 500 ("broke the contract") at run time.
    const spec = loadSpec();
    const schema = (pointer: string) => deref(spec, { $ref: `#/components/schemas/${pointer}` });
    const longest = (pointer: string) => 'x'.repeat(Number(schema(pointer)['maxLength']));
    const byLength = (values: string[]) => values.toSorted((a, b) => b.length - a.length)[0] ?? '';
    // A list with a filter carries the filters' digest too (`list-options.ts`): one of its longest, 32 bits in base 36.
    let filter = 0;
    while (boundOptionsDigest({ filter }, new Set())?.length !== (2 ** 32 - 1).toString(36).length) filter++;
    const cursor = codec.encode({
      scope: byLength(['own', 'shared'] satisfies ListScope[]) as ListScope,
      userId: longest('UserId'),
      sort: byLength(SORT.values) as Sort,
      options: { filter },
      after: { createdAt: longest('Item/properties/createdAt'), id: longest('ItemId') },
    });
    const maxLength = Number(schema('Cursor')['maxLength']);
    expect(
      cursor.length,
      `openapi/openapi.yaml's Cursor allows ${maxLength} characters, and the server makes cursors of up to ${cursor.length}: raise its maxLength, or make the cursors shorter (src/server/cursor.ts)`,
    ).toBeLessThanOrEqual(maxLength);
  });
});

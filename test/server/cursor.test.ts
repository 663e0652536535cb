import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../src/server/cursor.js';

const secret = Buffer.alloc(32, 7);
const codec = new CursorCodec(secret);
const expected = { scope: 'own', userId: 'usr_aaaaaaaaaaaaaaaa', sort: 'asc' } as const;

/** A cursor signed with the service's secret around any payload, as a leaked or rotated secret would allow. */
function signed(payload: string): string {
  const body = Buffer.from(payload).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest().subarray(0, 16).toString('base64url')}`;
}

describe('cursors', () => {
  it('round-trip for the list, caller and order they were made for', () => {
    const cursor = codec.encode({ ...expected, after: { createdAt: '2026-01-01T00:00:00.000Z', id: 'itm_aaaaaaaaaaaaaaaa' } });
    expect(codec.decode(cursor, expected)).toEqual({ ok: true, after: { createdAt: '2026-01-01T00:00:00.000Z', id: 'itm_aaaaaaaaaaaaaaaa' } });
    expect(codec.decode(cursor, { ...expected, sort: 'desc' })).toMatchObject({ ok: false });
  });

  it.each(['null', '5', '"text"', '[]', 'true', '{"s":"own","u":"usr_aaaaaaaaaaaaaaaa","o":"asc","c":5,"i":null}'])(
    'refuse a correctly signed payload of another shape (%s) instead of failing',
    (payload) => {
      expect(codec.decode(signed(payload), expected)).toEqual({ ok: false, reason: 'is not a cursor this service issued' });
    },
  );
});

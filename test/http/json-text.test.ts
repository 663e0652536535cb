import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText } from '../../src/http/json-text.js';

/** Freezes some of the plain objects in a value, at any depth, as the page cache freezes the records it keeps. */
function freezeSome(value: unknown, pick: () => boolean): unknown {
  if (Array.isArray(value)) {
    for (const element of value) freezeSome(element, pick);
  } else if (typeof value === 'object' && value !== null) {
    for (const field of Object.values(value)) freezeSome(field, pick);
    if (pick()) Object.freeze(value);
  }
  return value;
}

describe('jsonText', () => {
  it('writes what JSON.stringify writes, for any value, frozen or not, the first time and again', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withDate: true, withBoxedValues: true, withSparseArray: true }), fc.boolean(), (value, freeze) => {
        let flip = freeze;
        const expected = JSON.stringify(value);
        freezeSome(value, () => (flip = !flip));
        if (expected === undefined) return;
        expect(jsonText(value)).toBe(expected);
        expect(jsonText(value)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('writes a page of frozen records as JSON.stringify does, and the records again from memory', () => {
    const items = [1, 2].map((n) => Object.freeze({ id: `itm_${n}`, title: 'quote " and \u2028', createdAt: '2026-11-28T00:00:00.000Z', gone: undefined }));
    const page = { items, nextCursor: null };
    expect(jsonText(page)).toBe(JSON.stringify(page));
    expect(jsonText({ items: items.slice(), nextCursor: 'abc' })).toBe(JSON.stringify({ items, nextCursor: 'abc' }));
  });

  it('never remembers an object that can still change: not frozen, or frozen around a mutable one', () => {
    const open = { title: 'before' };
    expect(jsonText(open)).toBe('{"title":"before"}');
    open.title = 'after';
    expect(jsonText(open)).toBe('{"title":"after"}');

    const inner = { title: 'before' };
    const shallow = Object.freeze({ inner });
    expect(jsonText(shallow)).toBe('{"inner":{"title":"before"}}');
    inner.title = 'after';
    expect(jsonText(shallow)).toBe('{"inner":{"title":"after"}}');
  });

  it('leaves toJSON, dates and other non-plain objects to JSON.stringify', () => {
    const value = { at: new Date(0), custom: { toJSON: () => 'custom' }, list: [undefined, () => 1, Symbol('s')], map: new Map([[1, 2]]) };
    expect(jsonText(value)).toBe(JSON.stringify(value));
  });
});

import { describe, expect, it } from 'vitest';
import { owner, scopedMentions } from '../../../tools/check/prose-scope.js';

/** `title` is a field of Item (renamed) and of Problem (kept). */
const owners = [owner('Item'), owner('Problem')];
const itemTitles = (text: string) => scopedMentions(text, 'title', 'Item', owners).map(({ index }) => text.slice(index, index + 8));

describe('a field name in prose, read as the field of the schema the prose is about', () => {
  it("finds the decision table's row on Item, while Problem keeps a title", () => {
    const row = '| Purpose and resources | not shown | A neutral list resource, `Item` (`id`, `title`, `ownerId`, `createdAt`). |';
    expect(itemTitles(row)).toEqual(['`title`,']);
  });

  it("passes over a problem's title", () => {
    expect(itemTitles('Identifies the kind of problem. Clients branch on `type`, never on `title`, which may change.')).toEqual([]);
  });

  it('reads each mention by the schema named closest to it in its sentence', () => {
    expect(scopedMentions("An item's `title` and a problem's `title`.", 'title', 'Item', owners)).toEqual([{ index: 10, backticked: true }]);
  });

  it('always finds Item.title', () => {
    expect(itemTitles('Sorted by Problem type, then `Item.title`.')).toEqual(['`Item.ti']);
  });

  it("scopes a backticked name in a sentence that names no schema by its paragraph, then its section's heading", () => {
    expect(itemTitles('Items are listed newest first.\nEach has a `title`.')).toEqual(['`title`.']);
    expect(itemTitles('## Items\n\nEach has a `title`.')).toEqual(['`title`.']);
    expect(itemTitles('## Problems\n\nEach has a `title`.')).toEqual([]);
    // A paragraph that names no schema after a heading that names both is left alone.
    expect(itemTitles('## Items and problems\n\nEach has a `title`.')).toEqual([]);
  });

  it('reads a plain word ("a title") only by its own sentence', () => {
    expect(itemTitles('Each item has a title.')).toEqual(['title.']);
    expect(itemTitles('Items are listed newest first. Each has a title.')).toEqual([]);
  });

  it('does not take a longer name for the name', () => {
    expect(itemTitles('An item has a `subtitle`, a `title-case` and a `titles`.')).toEqual([]);
  });
});

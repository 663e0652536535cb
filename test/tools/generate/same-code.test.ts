import { describe, expect, it } from 'vitest';
import { sameCode } from '../../../tools/generate/same-code.js';

const TYPES = `export interface paths {
    /** List your own items */
    "/": { post: operations["listItems"] };
}
// a line comment
export type Sort = "asc" | "desc";
`;

describe('sameCode: whether new generated types differ from the old in more than comments', () => {
  it('is true when only doc comments, line comments or whitespace changed', () => {
    const edited = TYPES.replace('/** List your own items */', '/**\n     * List your own items, newest first\n     */').replace('// a line comment', '');
    expect(sameCode(TYPES, edited)).toBe(true);
  });

  it('is false when a type changed, however small', () => {
    expect(sameCode(TYPES, TYPES.replace('"asc" | "desc"', '"asc"'))).toBe(false);
    expect(sameCode(TYPES, TYPES.replace('"listItems"', '"listAllItems"'))).toBe(false);
  });

  it('is false when the text of a template literal changed, even where it looks like a comment', () => {
    const template = (tail: string) => `export type Id = \`item_\${string}//${tail}\`;\n`;
    expect(sameCode(template('a'), template('b'))).toBe(false);
  });

  it('is true for a text that does not parse only when it is the very same text', () => {
    expect(sameCode('export type = ;', 'export type = ;')).toBe(true);
    expect(sameCode('export type = ; // one', 'export type = ; // two')).toBe(false);
  });
});

/**
 * JSON may carry a lone surrogate (`"\ud800"`), which is not text: JavaScript keeps it, PostgreSQL and SQLite's
 * UTF-8 store a replacement character instead, and three different strings then compare equal to one stored
 * password or name (issue 33 point 6: `"quiet\ud800orbit velvet lantern"` signed in as `\udbff` and `\ufffd`). A body
 * string that is not well-formed Unicode is refused with a 422 naming it, as U+0000 already is.
 */

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const ILL_FORMED_DETAIL = 'must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) is not a character';

/**
 * The JSON pointer of each string (object keys included) in `value` that is not well-formed Unicode. Walked with a
 * stack of its own, not by recursion: a body nested 500,000 deep (which JSON.parse takes) must not overflow the call
 * stack into a 500.
 */
export function illFormedStrings(value: unknown): string[] {
  const found: string[] = [];
  const pending: Array<[unknown, string]> = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, pointer] = next;
    if (typeof node === 'string') {
      if (LONE_SURROGATE.test(node)) found.push(pointer);
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) pending.push([node[index], `${pointer}/${index}`]);
    } else if (node !== null && typeof node === 'object') {
      const keys = Object.keys(node);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (LONE_SURROGATE.test(key)) found.push(at);
        pending.push([(node as Record<string, unknown>)[key], at]);
      }
    }
  }
  return found;
}

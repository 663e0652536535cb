/**
 * JSON may carry a lone surrogate (`"\ud800"`), which is not text: JavaScript keeps it, PostgreSQL and SQLite's
 * UTF-8 store a replacement character instead, and three different strings then compare equal to one stored
 * password or name (issue 33 point 6: `"quiet\ud800orbit velvet lantern"` signed in as `\udbff` and `\ufffd`). A body
 * string that is not well-formed Unicode is refused with a 422 naming it, as U+0000 already is.
 */

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const ILL_FORMED_DETAIL = 'must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) is not a character';

/** The JSON pointer of each string (object keys included) in `value` that is not well-formed Unicode. */
export function illFormedStrings(value: unknown, pointer = ''): string[] {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? [pointer] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => illFormedStrings(item, `${pointer}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  const found: string[] = [];
  for (const key in value) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (LONE_SURROGATE.test(key)) found.push(at);
    found.push(...illFormedStrings((value as Record<string, unknown>)[key], at));
  }
  return found;
}

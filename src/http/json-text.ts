/**
 * An answer's JSON text, as `JSON.stringify` writes it, with the text of each frozen record remembered.
 *
 * Why: a list answer is mostly records the store's page cache already holds (`cached-store.ts` freezes what it keeps),
 * so the same records were serialised again on every request: about 8 µs of this server's ~100 µs of CPU per answer
 * in `bench:profile`, for a ten-item page. A frozen object whose values are all primitives cannot change, so its text
 * is a function of the object itself, and a WeakMap keeps it exactly as long as the record lives.
 *
 * Only plain objects and arrays are walked here; anything else (a Date, a value with `toJSON`, a boxed primitive) is
 * left to `JSON.stringify` whole, so the text is the same as `JSON.stringify(value)` (test/http/json-text.test.ts).
 */
const remembered = new WeakMap<object, string>();

export function jsonText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const element: unknown = value[index];
      text += (index === 0 ? '' : ',') + (omitted(element) ? 'null' : jsonText(element));
    }
    return `${text}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if ((prototype !== Object.prototype && prototype !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  const known = remembered.get(value);
  if (known !== undefined) return known;
  const record = value as Record<string, unknown>;
  let text = '{';
  let immutable = Object.isFrozen(value);
  for (const name of Object.keys(record)) {
    const field = record[name];
    if (omitted(field)) continue;
    if (typeof field === 'object' && field !== null) immutable = false;
    text += `${text === '{' ? '' : ','}${JSON.stringify(name)}:${jsonText(field)}`;
  }
  text += '}';
  if (immutable) remembered.set(value, text);
  return text;
}

/** What `JSON.stringify` leaves out of an object, and writes as `null` in an array. */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

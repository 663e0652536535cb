/**
 * What binds a list's cursor to the request it was made for (the contract's `Cursor`): every option of the list
 * but the cursor itself and the page size, which may change from page to page. A filter (`tag=urgent`) added to a
 * list in the spec binds its cursors with no change here, so a cursor made for a filtered list is refused on an
 * unfiltered one (or one with another filter) rather than continuing the wrong list.
 *
 * The options are kept in the cursor as a short digest, not as themselves, so a cursor stays short whatever the
 * filters. It is on the request path: it walks the options in place (no array of their names, no copy), text is
 * hashed as it is, and when no option binds it does nothing more than that walk.
 */

import { createHash } from 'node:crypto';

/**
 * A digest of the options that bind a cursor, or `undefined` when none is set (a list without filters: its
 * cursors carry nothing more). Independent of the order the fields came in (a body's `{"a":1,"b":2}` and
 * `{"b":2,"a":1}` ask for the same list), and of how they travelled: a query's `limit=5` and a body's `5` are
 * the same once validated. 32 bits of SHA-256 per field, added: not a guard against forgery (the server signs its
 * cursors; the account's and the mock's move only within the caller's own lists), only against a client that mixes
 * up lists.
 */
export function boundOptionsDigest(options: object, unbound: ReadonlySet<string>): string | undefined {
  let digest = 0;
  let any = false;
  for (const name in options) {
    if (!Object.hasOwn(options, name) || unbound.has(name)) continue;
    const value: unknown = (options as Record<string, unknown>)[name];
    if (value === undefined) continue;
    any = true;
    // Each field hashed on its own and the hashes added: the sum does not depend on the order of the fields.
    // A separator between name and value, so that `ab=c` and `a=bc` differ; a structured value (an array of tags) as JSON.
    const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
    digest = (digest + createHash('sha256').update(name).update('\0').update(text).digest().readUInt32BE(0)) >>> 0;
  }
  return any ? digest.toString(36) : undefined;
}

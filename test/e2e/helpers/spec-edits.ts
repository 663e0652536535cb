/**
 * The edits an API developer makes to the project, written as text edits of a copy
 * (`copyProject`), the way an editor leaves the files: the spec keeps its formatting,
 * comments and quotes, so what follows the edit is what follows a real one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Replaces `find` in a file of the copy, failing loudly when the file no longer has it (the edit must be updated). */
export function editFile(root: string, file: string, find: string | RegExp, replace: string): void {
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  const next = text.replace(find, replace);
  if (next === text) throw new Error(`update this edit: ${file} no longer has ${String(find)}`);
  writeFileSync(path, next);
}

/** The `paths:` entries of a YAML fragment, indented as they stand under `paths:` in the spec. */
function pathEntries(fragment: string): string {
  const lines = fragment.split('\n');
  const start = lines.indexOf('paths:');
  if (start < 0) throw new Error('the fragment has no top-level paths:');
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    body.push(line);
  }
  return `${body.join('\n').trimEnd()}\n`;
}

/** The operation `GET /items/{id}` of `test/contract-suite/fixtures/get-item.yaml`, written into the spec's paths. */
export const GET_ITEM_FRAGMENT = new URL('../../contract-suite/fixtures/get-item.yaml', import.meta.url);

/** Adds the paths of a YAML fragment (such as GET_ITEM_FRAGMENT) at the end of the public spec's `paths:`. */
export function addPaths(root: string, fragment: URL = GET_ITEM_FRAGMENT, spec = 'openapi/openapi.yaml'): void {
  editFile(root, spec, /\n(components:)/, `\n${pathEntries(readFileSync(fragment, 'utf8'))}\n$1`);
}

/**
 * What `GET /items/{id}` needs in the source: a store query (one port method, its one SQL implementation for both
 * engines, and its name among the cache's pass-throughs, as it caches nothing) and its handler, in the public
 * API's handler map.
 */
export function addGetItemHandler(root: string): void {
  editFile(
    root,
    'src/store/store.ts',
    /(\n {2}listItems\(scope: ListScope, query: PageQuery\): Promise<Item\[\]>;\n)/,
    `$1  /** One item, if the user may see it (they own it, or it was shared with them); else undefined, whether or not it exists. */
  findVisibleItem(itemId: string, userId: string): Promise<Item | undefined>;
`,
  );
  editFile(
    root,
    'src/store/sql-store.ts',
    /(\n {4}shareItem: '[^\n]+',\n)/,
    // \`$$n\` writes the SQL's \`$n\` (a replacement's \`$1\` is the match).
    `$1    findVisibleItem: \`SELECT \${selectList(c.item)} FROM items i
      WHERE i.id = $$1 AND (i.owner_id = $$2 OR EXISTS (SELECT 1 FROM shares s WHERE s.item_id = i.id AND s.user_id = $$2))\`,
`,
  );
  editFile(
    root,
    'src/store/sql-store.ts',
    /(\n {2}leaseQuota\(keyId: string, request: QuotaRequest\): Promise<QuotaLease> \{)/,
    `
  findVisibleItem(itemId: string, userId: string): Promise<Item | undefined> {
    return this.#perform(get<Item>(this.#sql.findVisibleItem, [itemId, userId]));
  }
$1`,
  );
  editFile(root, 'src/store/cached-store.ts', /(\n {2}'listKeys',\n)/, `\n  'findVisibleItem',$1`);
  editFile(
    root,
    'src/server/operations.ts',
    /(\n {2}listSharedItemsByQuery: [^\n]+\n)/,
    `$1  getItem: async ({ path }, { caller, store }) => {
    const item = await store.findVisibleItem(path.id, caller.userId);
    if (!item) throw new ApiError('urn:problem-type:not-found', 'No item with this id.');
    return { status: 200, body: item };
  },
`,
  );
  editFile(root, 'src/server/operations.ts', /^(import { InputViolation })/m, "import { ApiError } from '../http/problems.js';\n$1");
}

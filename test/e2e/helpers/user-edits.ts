/**
 * Issue 35's ordinary edits, each written as the developer makes it: the spec as an editor leaves it, and the code
 * the typecheck or a check then names, changed by hand. None of them knows the test suite: what a test pins of
 * the spec, it must read from the spec (`test/e2e/every-edit-follows.slow.test.ts` runs `npm run fix`,
 * `npm run check` and the whole `npm test` after each).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeSortDesc } from './edit-remove-desc.js';
import { renameItemTitle } from './edit-rename-title.js';
import { addGetItemHandler, addPaths, editFile } from './spec-edits.js';

export interface UserEdit {
  name: string;
  /** Makes the edit in a whole copy of the project. */
  apply(root: string): void;
}

const read = (root: string, file: string) => readFileSync(join(root, file), 'utf8');

/** POST / copied under a new path and operationId, and its handler in the public API's handler map. */
export function addArchivedList(root: string): void {
  const own = /\n( {2}\/:\n {4}post:\n[\s\S]*?)\n {2}\/shared:\n/.exec(read(root, 'openapi/openapi.yaml'))?.[1];
  if (!own) throw new Error('update this edit: openapi/openapi.yaml no longer has POST / before /shared');
  editFile(
    root,
    'openapi/openapi.yaml',
    '\n  /shared:\n',
    `\n${own.replace('  /:', '  /archived:').replace('operationId: listOwnItems', 'operationId: listArchivedItems')}\n  /shared:\n`,
  );
  editFile(
    root,
    'src/server/operations.ts',
    /(\n {2}listSharedItemsByQuery: [^\n]+\n)/,
    "$1  listArchivedItems: async ({ body }, context) => ({ status: 200, body: await listPage('own', body, context) }),\n",
  );
}

export const USER_EDITS: readonly UserEdit[] = [
  {
    name: 'the rate limit doubled',
    apply(root) {
      const before = Number(/\n {2}rateLimit:\n {4}requests: (\d+)/.exec(read(root, 'openapi/openapi.yaml'))?.[1]);
      if (!(before > 0)) throw new Error('update this edit: x-limits.rateLimit.requests is no longer in openapi/openapi.yaml');
      editFile(root, 'openapi/openapi.yaml', `\n  rateLimit:\n    requests: ${before}\n`, `\n  rateLimit:\n    requests: ${before * 2}\n`);
    },
  },
  {
    name: 'the page size allowed up to 200',
    apply(root) {
      editFile(root, 'openapi/openapi.yaml', /(maximum: )100(\n {6}default: 20)/, '$1200$2');
    },
  },
  {
    name: "the account's bounds: user names up to 40, passwords from 16",
    apply(root) {
      editFile(root, 'openapi/account.yaml', /(pattern: '\^\[a-z0-9\]\[a-z0-9._-\]\*\$'\n {6}minLength: 3\n {6}maxLength:) 64/, '$1 40');
      editFile(root, 'openapi/account.yaml', /(\n {4}SignUpRequest:\n[\s\S]*? {10}minLength:) 15/, '$1 16');
    },
  },
  {
    name: "a key's expiry presets and name length",
    apply(root) {
      editFile(root, 'openapi/account.yaml', 'enum: [7, 30, 60, 90, 365]', 'enum: [30, 60, 90, 180, 365]');
      editFile(root, 'openapi/account.yaml', /(\n {4}KeyName:\n(?: {6}.*\n)*? {6}maxLength:) 100/, '$1 60');
    },
  },
  {
    name: 'an operation summary reworded',
    apply(root) {
      editFile(root, 'openapi/openapi.yaml', 'summary: List your own items', 'summary: List the items you own');
    },
  },
  { name: 'a new list operation, POST /archived, and its handler', apply: addArchivedList },
  {
    name: 'a new path operation, GET /items/{id}, with its query and handler',
    apply(root) {
      addPaths(root);
      addGetItemHandler(root);
    },
  },
  {
    name: 'a new migration: an index on items by title',
    apply(root) {
      editFile(
        root,
        'src/store/migrations.ts',
        /\n(\];\n\n\/\*\* The migrations as SQLite runs them)/,
        '\n  // 11: items found by title.\n  () => `\n  CREATE INDEX items_by_title ON items(owner_id, title);\n  `,\n$1',
      );
      editFile(
        root,
        'src/store/schema-policy.ts',
        /\n(\];\n\n\/\*\* The schema version this code was written for)/,
        "\n  { version: 11, oldestCode: 8, change: 'items by title (an index)' },\n$1",
      );
    },
  },
  renameItemTitle,
  removeSortDesc,
];

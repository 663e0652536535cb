/**
 * Issue 35's breaking edit: the value `desc` taken out of the public API's `Sort`, as a developer makes it. The spec
 * first (the enum, what its description and the decision table say of it, the request example that sent it), then
 * what the release gate of `npm run check` asks for a change that can break a client: the next major version in
 * `info.version` and its `### Breaking changes` in CHANGELOG.md. Then what the typecheck and the checks name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { editFile } from './spec-edits.js';
import type { UserEdit } from './user-edits.js';

const SPEC = 'openapi/openapi.yaml';

export const removeSortDesc: UserEdit = {
  name: 'the sort value desc removed, with its major version and changelog',
  apply(root) {
    // The enum, and what the spec says of its values.
    editFile(root, SPEC, /(\n {4}Sort:\n {6}type: string\n {6}description: \|\n[\s\S]*?)\n {6}enum: \[asc, desc\]\n/, '$1\n      enum: [asc]\n');
    editFile(root, SPEC, '`id`, both ascending (`asc`) or both descending (`desc`).', '`id`, both ascending (`asc`).');
    editFile(
      root,
      SPEC,
      'Enum `asc` / `desc`, optional, default `asc`. Items are ordered by `createdAt`, ties broken by `id`, both in the chosen direction,',
      'Enum `asc`, optional, default `asc`. Items are ordered by `createdAt`, ties broken by `id`, both ascending,',
    );
    // The page that copies the table (test/readme.test.ts compares the two; npm run fix writes the enum's part alone).
    editFile(root, 'docs/what-the-contract-decides.md', 'ties broken by `id`, both in the chosen direction,', 'ties broken by `id`, both ascending,');
    // The request example that sent `desc`, and where the two list operations name it.
    editFile(root, SPEC, /\n {4}NewestFirstListRequest:\n(?: {6}.*\n)+/, '\n');
    for (let n = 0; n < 2; n += 1) editFile(root, SPEC, /\n {14}newestFirstPage:\n {16}\$ref: '#\/components\/examples\/NewestFirstListRequest'\n/, '\n');

    // What the typecheck names. The store orders either way, and keeps doing so with a direction of its own (the
    // spec's `Sort` has one value now): its SQL and its callers need no change.
    editFile(
      root,
      'src/store/store.ts',
      /^import type \{ Item, Sort \} from '\.\.\/contract\/types\.js';/m,
      "import type { Item } from '../contract/types.js';",
    );
    editFile(
      root,
      'src/store/store.ts',
      /(\nexport interface PageQuery \{\n {2}userId: string;\n) {2}sort: Sort;\n/,
      "$1  /** The store's own: the spec's `Sort` takes `asc` only, and a store orders either way. */\n  sort: Direction;\n",
    );
    editFile(
      root,
      'src/store/store.ts',
      /\n(export interface PageQuery \{)/,
      "\n/** The direction of a list's order, ascending or descending. */\nexport type Direction = 'asc' | 'desc';\n\n$1",
    );
    editFile(
      root,
      'src/store/sql-store.ts',
      /^import type \{ Item, Sort \} from '\.\.\/contract\/types\.js';/m,
      "import type { Item } from '../contract/types.js';",
    );
    editFile(
      root,
      'src/store/sql-store.ts',
      'const listItems = (scope: ListScope, sort: Sort, after: boolean) => {',
      'const listItems = (scope: ListScope, sort: Direction, after: boolean) => {',
    );
    editFile(root, 'src/store/sql-store.ts', /(\nimport \{\n(?: {2}.*\n)*?) {2}type ListScope,\n/, '$1  type Direction,\n  type ListScope,\n');
    // The bench's stand-in server answers as the spec says.
    editFile(root, 'tools/bench/servers/peer.ts', /\nconst descending = \[\.\.\.ascending\]\.reverse\(\);\n/, '\n');
    editFile(
      root,
      'tools/bench/servers/peer.ts',
      "const items: Item[] = request.sort === 'desc' ? descending : ascending;",
      'const items: Item[] = ascending;',
    );
    editFile(
      root,
      'tools/bench/servers/peer.ts',
      "if (value !== 'asc' && value !== 'desc') return '/sort must be one of: asc, desc';",
      "if (value !== 'asc') return '/sort must be one of: asc';",
    );
    // The samples check:contracts names (the client's README and doc comments, docs/mock-and-client.md).
    editFile(
      root,
      'src/client/README.md',
      "await api.POST('/', { body: { sort: 'desc', limit: 10 } });",
      "await api.POST('/', { body: { sort: 'asc', limit: 10 } });",
    );
    editFile(
      root,
      'docs/mock-and-client.md',
      "await api.POST('/', { body: { sort: 'desc', limit: 10 } });",
      "await api.POST('/', { body: { sort: 'asc', limit: 10 } });",
    );
    editFile(
      root,
      'src/client/index.ts',
      " * const { data, error } = await api.POST('/', { body: { sort: 'desc', limit: 10 } });",
      " * const { data, error } = await api.POST('/', { body: { sort: 'asc', limit: 10 } });",
    );
    editFile(
      root,
      'src/client/index.ts',
      " * for await (const page of paginate(api, 'listSharedItems', { sort: 'desc', limit: 50 })) {",
      " * for await (const page of paginate(api, 'listSharedItems', { limit: 50 })) {",
    );
    // The prose check:contracts names: the contract suite's planted faults.
    editFile(
      root,
      'docs/contract-suite.md',
      '| `sort=desc` answered ascending | `field-values` sort, `example newestFirstPage` (order) |',
      '| `sort` ignored: every list in the default order | `field-values` sort (order) |',
    );
    // Nothing checks the soak's requests before it runs: one that sent `desc` as valid would now be a 422.
    editFile(
      root,
      'tools/soak/soak.ts',
      `{ name: 'own, newest first', valid: true, operationId: 'listOwnItems', request: post(root, '{"sort":"desc","limit":3}') }`,
      `{ name: 'own, three per page', valid: true, operationId: 'listOwnItems', request: post(root, '{"sort":"asc","limit":3}') }`,
    );
    editFile(root, 'tools/soak/soak.ts', '?limit=2&sort=desc`', '?limit=2&sort=asc`');

    // The release gate: a new major version (unless the spec is at one its release has not yet), and what breaks, in
    // CHANGELOG.md's section of that version.
    const breaking =
      '- `sort` has one value, `asc`: `desc` (newest first) is gone from `Sort` (`POST /`, `POST /shared`, and the\n' +
      '  `sort` query parameter of `GET /shared`). A request that sends `sort: desc` is a `422`. Send `asc`, or no `sort`.\n';
    const [working, released] = [SPEC, 'openapi/released/openapi.yaml'].map((file) => {
      const version = /^ {2}version: (\d+)\.\d+\.\d+$/m.exec(readFileSync(join(root, file), 'utf8'));
      if (!version) throw new Error(`update this edit: ${file} no longer has info.version as major.minor.patch`);
      return { text: version[0].trim().slice('version: '.length), major: Number(version[1]) };
    }) as [{ text: string; major: number }, { text: string; major: number }];
    if (working.major > released.major) {
      const section = new RegExp(`(\\n## openapi\\.yaml ${working.text.replaceAll('.', '\\.')} [^\\n]*\\n[\\s\\S]*?\\n### Breaking changes\\n\\n)`);
      editFile(root, 'CHANGELOG.md', section, `$1${breaking}`);
    } else {
      const major = `${released.major + 1}.0.0`;
      editFile(root, SPEC, /^( {2}version: )\d+\.\d+\.\d+$/m, `$1${major}`);
      editFile(
        root,
        'CHANGELOG.md',
        /\n(## \S+\.yaml \d+\.\d+\.\d+)/,
        `\n## openapi.yaml ${major} (not released yet)\n\nThe public API's changes listed under **Unreleased** above, with this one that can break a client:\n\n### Breaking changes\n\n${breaking}\n$1`,
      );
    }
  },
};

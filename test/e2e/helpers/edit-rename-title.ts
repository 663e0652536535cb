/**
 * Issue 35's rename of a field: the item's `title` renamed to `name` in the public spec (the schema, its `required`,
 * the response examples and the prose that means the item's field; `Problem.title` stays), then what `npm run fix`
 * and `npm run check` name, changed by hand: the breaking change released as a new major version with its CHANGELOG
 * section, the stale Spectral exception and the prose that names the field, the client's samples, and the code the
 * typecheck names (the store maps the column `title`, which stays, to the field `name`; the bench's fixture).
 */
import { editFile } from './spec-edits.js';
import type { UserEdit } from './user-edits.js';

export const renameItemTitle: UserEdit = {
  name: "the item's title renamed to name",
  apply(root) {
    const spec = 'openapi/openapi.yaml';
    editFile(root, spec, '`Item` (`id`, `title`, `ownerId`, `createdAt`)', '`Item` (`id`, `name`, `ownerId`, `createdAt`)');
    editFile(root, spec, 'an identifier, a title, its owner', 'an identifier, a name, its owner');
    editFile(root, spec, 'required: [id, title, ownerId, createdAt]', 'required: [id, name, ownerId, createdAt]');
    editFile(root, spec, /(\n {8})title:(\n {10}type: string\n {10}description: Human-readable) title( of the item\.)/, '$1name:$2 name$3');
    // The items of the response examples: each item's `title` follows its `id`.
    editFile(root, spec, /(\n {10}- id: itm_\w+\n {12})title:/g, '$1name:');

    // npm run check:contracts: a removed field breaks clients of 1.0.0, so it is a new major version, with its section.
    editFile(root, spec, /(\ninfo:\n(?: {2}.*\n)*? {2}version:) 1\.\d+\.\d+\n/, '$1 2.0.0\n');
    editFile(
      root,
      'CHANGELOG.md',
      /\n(## (?:openapi|account)\.yaml \d)/,
      `
## openapi.yaml 2.0.0 (not released yet)

The public API's changes listed under **Unreleased** above, with this one that can break a client:

### Breaking changes

- An item's \`title\` is now called \`name\` (\`Item\`, in every list answer: \`POST /\`, \`POST /shared\`, \`GET /shared\`).
  Read \`name\` where you read \`title\`; the value is the same.

$1`,
    );
    // npm run check:contracts' names: the places that still name the field.
    editFile(
      root,
      '.spectral.yaml',
      "'openapi/openapi.yaml#/components/schemas/Item/properties/title'",
      "'openapi/openapi.yaml#/components/schemas/Item/properties/name'",
    );
    editFile(root, 'docs/what-the-contract-decides.md', '`Item` (`id`, `title`, `ownerId`, `createdAt`)', '`Item` (`id`, `name`, `ownerId`, `createdAt`)');
    // npm run check:contracts' samples.
    editFile(root, 'src/client/README.md', 'console.log(item.title)', 'console.log(item.name)');
    editFile(root, 'src/client/index.ts', /console\.log\(item\.title\)/g, 'console.log(item.name)');

    // npm run typecheck: the store keeps its column `title`, read as the field `name`.
    editFile(root, 'src/store/sql-store.ts', "title: 'i.title',", "name: 'i.title',");
    editFile(root, 'src/store/sql-store.ts', 'return { id, title, ownerId, createdAt };', 'return { id, name: title, ownerId, createdAt };');
    editFile(root, 'tools/bench/lib/fixture.ts', /(\n {4}id: `itm_bench[^\n]*\n {4})title,/, '$1name: title,');
    editFile(root, 'tools/bench/lib/project.ts', /item\.title/g, 'item.name');
  },
};

import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot, readContractPaths } from '../../src/contract/project.js';
import { renderTypes } from '../../tools/generate/render-types.js';
import { typescriptCommand } from '../../tools/process/commands.js';
import { runCommand } from '../../tools/process/run-command.js';
import { ITEM_TEXT_FIELD, RENAMED_TEXT_FIELD, renameItemText } from '../helpers/item-fixture.js';

const scratch = mkdtempSync(join(tmpdir(), 'spec-change-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The item's field the spec change renames, and its new name. */
const [field, renamed] = [ITEM_TEXT_FIELD.name, RENAMED_TEXT_FIELD];

describe('a spec change the code does not follow', () => {
  it('fails the typecheck once the types are regenerated', { timeout: 90_000 }, async () => {
    // A copy of src/ with types generated from a spec where the item's field (its free text) was renamed.
    cpSync(join(projectRoot, 'src'), join(scratch, 'src'), { recursive: true });
    const spec = join(scratch, 'openapi.yaml');
    writeFileSync(spec, renameItemText(readFileSync(readContractPaths().spec, 'utf8')));
    cpSync(join(projectRoot, 'generated'), join(scratch, 'generated'), { recursive: true });
    writeFileSync(join(scratch, 'generated', 'openapi.d.ts'), await renderTypes(spec));
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        extends: join(projectRoot, 'tsconfig.json'),
        compilerOptions: { typeRoots: [join(projectRoot, 'node_modules', '@types')] },
        include: ['src', 'generated'],
      }),
    );
    // Dependencies resolve from the project's node_modules.
    cpSync(join(projectRoot, 'package.json'), join(scratch, 'package.json'));
    symlinkSync(join(projectRoot, 'node_modules'), join(scratch, 'node_modules'));

    const result = await runCommand(typescriptCommand(['-p', join(scratch, 'tsconfig.json')]), { cwd: scratch });
    expect(
      result.code,
      `tsc accepted src/ against types where Item.${field} became Item.${renamed}: the code must take its types from generated/ (src/contract/types.ts), never from hand-written copies`,
    ).not.toBe(0);
    expect(result.stdout, `tsc failed, but not on the renamed field in src/; fix the errors below (run \`npm run typecheck\`):\n${result.stdout}`).toMatch(
      new RegExp(`src/\\w+/[\\w-]+\\.ts\\(\\d+,\\d+\\): error TS\\d+: .*'${field}'`),
    );
  });
});

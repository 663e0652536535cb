import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TypecheckError } from '../../../tools/dev/typecheck.js';
import { IncrementalTypecheck } from '../../../tools/dev/typecheck.js';

// A project of two files, without the standard library, so the checker starts in a moment.
const root = mkdtempSync(join(tmpdir(), 'typecheck-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const folder of ['src', 'test']) mkdirSync(join(root, folder));
writeFileSync(join(root, 'src', 'a.ts'), 'export const a: number = "one";\n');
writeFileSync(join(root, 'test', 'b.ts'), 'export const b: string = 2;\n');
writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { noLib: true, types: [], strict: true }, include: ['src', 'test'] }));
const inSrc = (fileName: string) => fileName.startsWith(`${join(root, 'src')}/`);

describe("the dev loop's warm typecheck", () => {
  it("tells the server's files' errors first, then all of them", () => {
    const firsts: TypecheckError[][] = [];
    const all = new IncrementalTypecheck(join(root, 'tsconfig.json')).check(
      () => false,
      inSrc,
      (errors) => firsts.push(errors),
    );
    const own = (errors: TypecheckError[] | undefined) => errors?.filter((error) => error.file !== undefined).map((error) => error.file?.slice(root.length));
    expect(firsts.map(own)).toEqual([['/src/a.ts']]);
    expect(own(all)).toEqual(['/src/a.ts', '/test/b.ts']);
  });

  it('finds the error a change makes in a file that did not change (a dependent), with the first files still first', () => {
    writeFileSync(join(root, 'src', 'types.ts'), 'export type Id = number;\n');
    writeFileSync(join(root, 'src', 'use.ts'), "import type { Id } from './types.js';\nexport const id: Id = 1;\n");
    const typecheck = new IncrementalTypecheck(join(root, 'tsconfig.json'));
    const files = (errors: TypecheckError[] | undefined) => errors?.flatMap((error) => (error.file ? [error.file.slice(root.length)] : []));
    expect(files(typecheck.check(() => false, inSrc))).not.toContain('/src/use.ts');
    // The generated types change under the handler, which is not saved again.
    writeFileSync(join(root, 'src', 'types.ts'), 'export type Id = string;\n');
    expect(files(typecheck.check(() => false, inSrc))).toContain('/src/use.ts');
  });

  it('stops when a newer save makes the check stale, and answers undefined', () => {
    expect(new IncrementalTypecheck(join(root, 'tsconfig.json')).check(() => true)).toBeUndefined();
  });
});

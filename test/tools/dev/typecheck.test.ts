import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTypecheckErrors, Typecheck, type TypecheckError } from '../../../tools/dev/typecheck.js';

// A project of a few files, with the smallest standard library, so the compiler is done in a moment: the server's
// config takes src/, the whole project's takes test/ too (as tsconfig.build.json and tsconfig.json do).
const root = mkdtempSync(join(tmpdir(), 'typecheck-'));
const checks: Typecheck[] = [];
afterAll(async () => {
  for (const check of checks) await check.close();
  rmSync(root, { recursive: true, force: true });
});
for (const folder of ['src', 'test']) mkdirSync(join(root, folder));
writeFileSync(join(root, 'src', 'a.ts'), 'export const a: number = "one";\n');
writeFileSync(join(root, 'test', 'b.ts'), 'export const b: string = 2;\n');
const options = { lib: ['es2015'], types: [], strict: true };
writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['src', 'test'] }));
writeFileSync(join(root, 'tsconfig.server.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src'] }));

function typecheck(): Typecheck {
  const check = new Typecheck(root, { server: 'tsconfig.server.json', all: 'tsconfig.json' });
  checks.push(check);
  return check;
}
const files = (errors: TypecheckError[] | undefined) => errors?.flatMap((error) => (error.file ? [error.file.slice(root.length)] : []));

describe("the dev loop's typecheck", () => {
  it("tells the server's files' errors first, then all of them, located", async () => {
    const run = typecheck().check();
    expect(await run.first).toEqual([
      { file: join(root, 'src', 'a.ts'), line: 1, column: 14, code: 2322, message: "Type 'string' is not assignable to type 'number'." },
    ]);
    expect(files(await run.all)).toEqual(['/src/a.ts', '/test/b.ts']);
  });

  it('finds the error a change makes in a file that did not change (a dependent), on its warm second check', async () => {
    writeFileSync(join(root, 'src', 'types.ts'), 'export type Id = number;\n');
    writeFileSync(join(root, 'src', 'use.ts'), "import type { Id } from './types.js';\nexport const id: Id = 1;\n");
    const check = typecheck();
    expect(files(await check.check().first)).not.toContain('/src/use.ts');
    // The generated types change under the handler, which is not saved again.
    writeFileSync(join(root, 'src', 'types.ts'), 'export type Id = string;\n');
    expect(files(await check.check().first)).toContain('/src/use.ts');
  });

  it('stops a check that a newer save made stale, and answers undefined', async () => {
    const check = typecheck();
    const stale = check.check();
    check.cancel();
    expect(await stale.first).toBeUndefined();
    expect(await stale.all).toBeUndefined();
    // A check asked for after it runs to its end.
    expect(files(await check.check().first)).toContain('/src/a.ts');
  });

  it("reads tsc's global errors and leaves the lines under an error out", () => {
    const output = [
      "error TS2688: Cannot find type definition file for 'node'.",
      "src/x.ts(3,7): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.",
      '  The expected type comes from this.',
    ].join('\n');
    expect(parseTypecheckErrors(output, '/p')).toEqual([
      { file: undefined, line: 0, column: 0, code: 2688, message: "Cannot find type definition file for 'node'." },
      { file: '/p/src/x.ts', line: 3, column: 7, code: 2345, message: "Argument of type 'number' is not assignable to parameter of type 'string'." },
    ]);
  });
});

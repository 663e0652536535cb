import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingHandlers, writeStubs } from '../../../tools/fix/handler-stubs.js';

const root = mkdtempSync(join(tmpdir(), 'handler-stubs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm run fix: stubs of the handlers the typecheck says are missing', () => {
  it('reads one missing handler (TS2741) and several (TS2739) from the typecheck, by file and line', () => {
    const output = [
      "src/server/operations.ts(29,14): error TS2741: Property 'getItem' is missing in type '{ listOwnItems: ... }' but required in type 'HandlerMap<operations, ApiContext>'.",
      "src/account/operations.ts(42,14): error TS2739: Type '{ signUp: ... }' is missing the following properties from type 'HandlerMap<operations, AccountContext>': updateKey, renameKey",
      "src/other.ts(1,1): error TS2322: Type 'string' is not assignable to type 'number'.",
    ].join('\n');
    expect(missingHandlers(output, root)).toEqual([
      { file: 'src/server/operations.ts', line: 29, operationIds: ['getItem'] },
      { file: 'src/account/operations.ts', line: 42, operationIds: ['updateKey', 'renameKey'] },
    ]);
  });

  it('writes nothing where the typecheck points at handlers listed by hand (a test double), and says what to do there', () => {
    mkdirSync(join(root, 'test'), { recursive: true });
    const file = join(root, 'test', 'double.ts');
    const text = `import type { X } from './x.js';\nexport function wrap(h: X): X {\n  return { a: h.a };\n}\n`;
    writeFileSync(file, text);
    expect(writeStubs(root, { file: 'test/double.ts', line: 3, operationIds: ['getItem'] })).toEqual({
      written: false,
      problem:
        'test/double.ts:3: the handlers there are listed by hand, not in a map npm run fix can write to; add getItem there (or spread the whole map: { ...handlers, ... })',
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it.each([
    { given: 'a trailing comma', last: '  b: async () => ({ status: 200 }),\n' },
    { given: 'no trailing comma', last: '  b: async () => ({ status: 200 })\n' },
  ])('writes each stub at the end of the map, with $given, and imports notImplemented once', ({ last }) => {
    mkdirSync(join(root, 'src', 'server'), { recursive: true });
    const file = join(root, 'src', 'server', 'operations.ts');
    writeFileSync(file, `import type { X } from './x.js';\n\nexport const handlers: X = {\n  a: async () => ({ status: 200 }),\n${last}};\n`);
    writeStubs(root, { file: 'src/server/operations.ts', line: 3, operationIds: ['getItem', 'putItem'] });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain("import { notImplemented } from '../http/not-implemented.js';");
    expect(text).toMatch(
      /b: async \(\) => \(\{ status: 200 \}\),\n {2}\/\/ Written by npm run fix[^\n]*\n {2}getItem: notImplemented\('getItem', 'src\/server\/operations\.ts'\),\n[^\n]*\n {2}putItem: notImplemented\('putItem', 'src\/server\/operations\.ts'\),\n\};\n$/,
    );
  });
});

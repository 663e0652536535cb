import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/contract/project.js';
import { explainLint, explainServerStart, explainTypecheck } from '../../../tools/dev/explain.js';
import type { TypecheckError } from '../../../tools/dev/typecheck.js';

const handlers = join(projectRoot, 'src', 'server', 'operations.ts');
const error = (message: string, code: number, file = handlers): TypecheckError => ({ file, line: 25, column: 14, code, message });

describe('explainTypecheck', () => {
  it.each([
    {
      given: 'a handler map without an operation the spec added (TS2741)',
      errors: [
        error(
          "Property 'deleteItem' is missing in type '{ listOwnItems: (input: { sort?: \"asc\" | \"desc\" | undefined; }) => Page; }' but required in type 'OperationHandlers'.",
          2741,
        ),
      ],
      want: [
        'a handler for operation deleteItem is missing in src/server/operations.ts: add it (its input and result types come from the regenerated types), or run npm run fix for a stub that answers 500 until you do',
      ],
    },
    {
      given: 'a handler map without several operations (TS2739)',
      errors: [
        error(
          "Type '{ listOwnItems: Handler; }' is missing the following properties from type 'OperationHandlers': listSharedItems, listSharedItemsByQuery",
          2739,
        ),
      ],
      want: [
        'a handler for operation listSharedItems is missing in src/server/operations.ts: add it (its input and result types come from the regenerated types), or run npm run fix for a stub that answers 500 until you do',
        'a handler for operation listSharedItemsByQuery is missing in src/server/operations.ts: add it (its input and result types come from the regenerated types), or run npm run fix for a stub that answers 500 until you do',
      ],
    },
    {
      given: 'an operation renamed in the spec (TS2561)',
      errors: [
        error(
          "Object literal may only specify known properties, but 'listSharedItemsByQuery' does not exist in type 'OperationHandlers'. Did you mean to write 'listSharedItemsViaQuery'?",
          2561,
        ),
      ],
      want: ['operation listSharedItemsByQuery is now listSharedItemsViaQuery in the spec: rename its handler in src/server/operations.ts'],
    },
    {
      given: 'an operation removed from the spec (TS2353)',
      errors: [error("Object literal may only specify known properties, and 'listSharedItemsByQuery' does not exist in type 'OperationHandlers'.", 2353)],
      want: ['the spec has no operation listSharedItemsByQuery: remove its handler from src/server/operations.ts, or restore the operation in the spec'],
    },
    {
      given: 'a required response header the spec added (a third trial of issue 24)',
      errors: [
        error(
          "Type 'Promise<{ status: 200; body: { items: Item[]; nextCursor: string | null; }; }>' is not assignable to type 'Promise<{ status: 200; body: { items: Item[]; nextCursor: string | null; }; } & { headers: Record<\"cache-control\", string> & Record<string, string>; }>'.",
          2322,
        ),
      ],
      want: [
        'the spec now requires cache-control on this answer, which the server does not write itself: return it from the handler at src/server/operations.ts:25 (headers: { ... }), or make it optional in the spec',
      ],
    },
    {
      given: "a list operation the spec added, which the client's LIST_ROUTES lacks",
      errors: [
        error(
          'Property \'listArchivedItems\' is missing in type \'{ readonly listOwnItems: { readonly method: "post"; readonly path: "/"; readonly options: "body"; }; }\' but required in type \'{ listArchivedItems: { method: "post"; path: "/archived"; } & { options: "body"; }; }\'.',
          2741,
          join(projectRoot, 'src', 'client', 'index.ts'),
        ),
      ],
      want: ['the spec has a new list operation listArchivedItems: paginate needs its route in src/client/index.ts; npm run fix writes it from the spec'],
    },
    {
      given: 'any other error after a spec change',
      errors: [error("Property 'title' does not exist on type 'Item'.", 2339, join(projectRoot, 'src', 'store', 'sqlite-store.ts'))],
      want: ['the code no longer follows the regenerated types: fix src/store/sqlite-store.ts:25 (or change the spec back)'],
    },
  ])('$given', ({ errors, want }) => {
    expect(explainTypecheck(errors, 'spec').fixes).toEqual(want);
  });

  it('points at the first error after a source change, and shows at most three', () => {
    const errors = [1, 2, 3, 4].map((line) => ({ ...error("Type 'string' is not assignable to type 'number'.", 2322), line }));
    const breakage = explainTypecheck(errors, 'source');
    expect(breakage.fixes).toEqual(['fix src/server/operations.ts:1']);
    expect(breakage.errors).toEqual([1, 2, 3].map((line) => `src/server/operations.ts:${line}:14 Type 'string' is not assignable to type 'number'. (TS2322)`));
    expect(breakage.total).toBe(4);
  });
});

describe('explainLint', () => {
  it('names the place and the message of the first problem', () => {
    const breakage = explainLint([
      { ruleId: 'operation-summary', message: 'Operation object should contain `summary` field.', location: 'openapi/openapi.yaml:70:7' },
    ]);
    expect(breakage.errors).toEqual(['openapi/openapi.yaml:70:7 Operation object should contain `summary` field. (operation-summary)']);
    expect(breakage.fixes).toEqual(['fix the spec at openapi/openapi.yaml:70:7: Operation object should contain `summary` field.']);
  });
});

describe('explainServerStart', () => {
  it("shows an uncaught error and its first frame in the project's code, not the loader's frames at the end", () => {
    const output = [
      '/tmp/copy/src/server/operations.ts:52',
      "if (process.pid > 0) throw new Error('made on purpose');",
      '                           ^',
      '',
      'Error: made on purpose',
      '    at <anonymous> (/tmp/copy/src/server/operations.ts:52:28)',
      '    at ModuleJob.run (node:internal/modules/esm/module_job:234:25)',
      '    at async ModuleLoader.import (node:internal/modules/esm/loader:606:24)',
      '',
      'Node.js v20.20.2',
    ].join('\n');
    expect(explainServerStart('the server ended (exit code 1) before listening', output).errors).toEqual([
      'the server ended (exit code 1) before listening',
      'Error: made on purpose',
      'at <anonymous> src/server/operations.ts:52:28',
    ]);
  });

  it('shows the last lines of any other output', () => {
    const output = '{"level":40,"msg":"configuration: running as root"}\nconfiguration error: PORT must be a whole number from 0 to 65535, not "x"';
    expect(explainServerStart('the server ended (exit code 2) before listening', output).errors).toEqual([
      'the server ended (exit code 2) before listening',
      '{"level":40,"msg":"configuration: running as root"}',
      'configuration error: PORT must be a whole number from 0 to 65535, not "x"',
    ]);
  });
});

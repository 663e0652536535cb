import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../../src/contract/spec.js';
import { missingListRoutes, writeListRoutes } from '../../../tools/fix/list-routes.js';

const root = mkdtempSync(join(tmpdir(), 'list-routes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The typecheck's words for a list operation added to the spec, POST /archived (trial of issue 24). */
const OUTPUT = [
  'src/client/index.ts(130,12): error TS2741: Property \'listArchivedItems\' is missing in type \'{ readonly listOwnItems: { readonly method: \'post\'; readonly path: \'/\'; readonly options: \'body\'; }; }\' but required in type \'{ listArchivedItems: { method: "post"; path: "/archived"; } & { options: "body"; }; listOwnItems: { method: "post"; path: "/"; } & { options: "body"; }; }\'.',
  'src/client/index.ts(171,78): error TS2536: Type \'Id\' cannot be used to index type \'{ readonly listOwnItems: { readonly method: "post"; readonly path: "/"; readonly options: "body"; }; }\'.',
  "src/server/operations.ts(29,14): error TS2741: Property 'getItem' is missing in type '{ listOwnItems: ... }' but required in type 'HandlerMap<operations, ApiContext>'.",
].join('\n');

const page = { '200': { description: 'A page.', content: { 'application/json': { schema: { type: 'object' } } } } };
const SPEC = {
  openapi: '3.1.0',
  paths: {
    '/': { post: { operationId: 'listOwnItems', requestBody: { content: { 'application/json': { schema: {} } } }, responses: page } },
    '/archived': { post: { operationId: 'listArchivedItems', requestBody: { content: { 'application/json': { schema: {} } } }, responses: page } },
    '/tags/{tag}/items': { get: { operationId: 'listTagged', responses: page } },
  },
  components: {},
} as unknown as OpenApiDocument;

describe('npm run fix: the routes of the list operations the client lacks', () => {
  it("reads them from the typecheck's complaint about LIST_ROUTES, not from a handler map's", () => {
    expect(missingListRoutes(OUTPUT)).toEqual({ line: 130, operationIds: ['listArchivedItems'] });
    expect(missingListRoutes(OUTPUT.split('\n').slice(2).join('\n'))).toBeUndefined();
  });

  it('writes each route as the spec has it, at the end of LIST_ROUTES, body or query', () => {
    mkdirSync(join(root, 'src', 'client'), { recursive: true });
    const file = join(root, 'src', 'client', 'index.ts');
    writeFileSync(
      file,
      "const OTHER = { a: 1 };\nconst LIST_ROUTES = {\n  listOwnItems: { method: 'post', path: '/', options: 'body' },\n} as const satisfies Routes;\n",
    );
    expect(writeListRoutes(root, SPEC, { line: 4, operationIds: ['listArchivedItems', 'listTagged', 'listGone'] })).toEqual({ unknown: ['listGone'] });
    expect(readFileSync(file, 'utf8')).toBe(
      "const OTHER = { a: 1 };\nconst LIST_ROUTES = {\n  listOwnItems: { method: 'post', path: '/', options: 'body' },\n" +
        "  listArchivedItems: { method: 'post', path: '/archived', options: 'body' },\n" +
        "  listTagged: { method: 'get', path: '/tags/{tag}/items', options: 'query' },\n} as const satisfies Routes;\n",
    );
  });
});

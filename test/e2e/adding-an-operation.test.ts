/**
 * The promise of the project, tried as a new API developer would: add an
 * operation with a path parameter and a 404 to a copy of the project, and see
 * the typecheck fail until one handler exists, then the server, the client,
 * the mock and the contract suite follow with no other source change.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectRoot } from '../../src/contract/project.js';
import { binCommand } from '../../src/process/commands.js';
import { runCommand } from '../../src/process/run-command.js';

const copy = mkdtempSync(join(tmpdir(), 'add-operation-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** `GET /items/{id}`: one item the caller may see; 404 when there is none (or it is not theirs to see). */
function addGetItem(spec: Record<string, any>): void {
  spec['paths']['/items/{id}'] = {
    get: {
      operationId: 'getItem',
      summary: 'Read one item',
      description: 'Returns one item the caller owns or that was shared with them.',
      tags: ['Items'],
      parameters: [{ name: 'id', in: 'path', required: true, description: 'The item id.', schema: { $ref: '#/components/schemas/ItemId' }, example: 'itm_0a1b2c3d4e5f6g7h' }],
      responses: {
        '200': {
          description: 'The item.',
          headers: Object.fromEntries(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((name) => [name, { $ref: `#/components/headers/${name}` }])),
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' }, examples: { item: { value: spec['components']['examples']['OwnItemsFirstPage']['value']['items'][0] } } } },
        },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '404': { $ref: '#/components/responses/NotFound' },
        '422': { $ref: '#/components/responses/UnprocessableContent' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
        '500': { $ref: '#/components/responses/InternalError' },
      },
    },
  };
  spec['components']['responses']['NotFound'] = {
    description: 'No item with this id is visible to the caller.',
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        examples: { notFound: { value: { type: 'urn:problem-type:not-found', title: 'Not found', status: 404, detail: 'No item with this id.', instance: '/items/itm_0a1b2c3d4e5f6g7h', requestId: '1a2b3c4d-5e6f-4a7b-9c8d-9e0f1a2b3c4d' } } },
      },
    },
  };
}

/** The one source change: a handler for the new operation, in the handler map. */
const HANDLER = `
  getItem: async ({ path }, { caller, store }) => {
    const item = await store.findVisibleItem(path.id, caller.userId);
    if (!item) throw new ApiError('urn:problem-type:not-found', 'No item with this id.');
    return { status: 200, body: item };
  },`;

const inCopy = (file: string) => join(copy, file);

beforeAll(async () => {
  for (const entry of ['src', 'openapi', 'generated', 'redocly.yaml', 'package.json', 'tsconfig.json']) cpSync(join(projectRoot, entry), inCopy(entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), inCopy('node_modules'));
  // Only src/ and generated/ are typechecked in the copy; tests stay in the project.
  writeFileSync(inCopy('tsconfig.json'), JSON.stringify({ extends: join(projectRoot, 'tsconfig.json'), compilerOptions: { typeRoots: [join(projectRoot, 'node_modules', '@types')] }, include: ['src', 'generated'] }));
  const spec = parse(readFileSync(inCopy('openapi/openapi.yaml'), 'utf8')) as Record<string, any>;
  addGetItem(spec);
  writeFileSync(inCopy('openapi/openapi.yaml'), stringify(spec, { lineWidth: 0 }));
  // A frontend's call to the new operation through the typed client; it must compile once types are regenerated.
  writeFileSync(
    inCopy('src/client/uses-get-item.ts'),
    `import { createApiClient } from './index.js';\nexport const readItem = (id: string) => createApiClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' }).GET('/items/{id}', { params: { path: { id } } });\n`,
  );
}, 60_000);

describe('adding GET /items/{id} to a copy of the project', () => {
  it('passes the contract lint and regenerates the types', async () => {
    const lint = await runCommand(binCommand('redocly', ['lint', '--config', inCopy('redocly.yaml')]), { cwd: copy });
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const generate = await runCommand([process.execPath, '--import', 'tsx', 'src/tooling/generate.ts'], { cwd: copy }); // the copy's own generator
    expect(generate.code, generate.stderr).toBe(0);
    expect(readFileSync(inCopy('generated/openapi.d.ts'), 'utf8')).toContain('getItem');
  });

  it('fails the typecheck, naming the missing handler, until one exists', async () => {
    const before = await runCommand(binCommand('tsc', ['-p', inCopy('tsconfig.json')]), { cwd: copy });
    expect(before.code).not.toBe(0);
    expect(before.stdout).toMatch(/src\/server\/operations\.ts\(\d+,\d+\): error TS\d+: Property 'getItem' is missing/);
    // Nothing else fails: the client call and every other module already follow the new types.
    expect(before.stdout.trim().split('\n').filter((line) => /error TS/.test(line))).toHaveLength(1);

    const handlers = readFileSync(inCopy('src/server/operations.ts'), 'utf8');
    const withHandler = handlers
      .replace(/(listSharedItemsByQuery: [^\n]+\n)/, `$1${HANDLER.slice(1)}\n`)
      .replace("import { InputViolation } from './read-input.js';", "import { ApiError } from './problems.js';\nimport { InputViolation } from './read-input.js';");
    expect(withHandler).toContain('getItem:');
    writeFileSync(inCopy('src/server/operations.ts'), withHandler);
    const after = await runCommand(binCommand('tsc', ['-p', inCopy('tsconfig.json')]), { cwd: copy });
    expect(after.code, after.stdout).toBe(0);
  });
});

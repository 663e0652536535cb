/**
 * The promise of the project, tried as a new API developer would: add an
 * operation with a path parameter and a 404 to a copy of the project, and see
 * the typecheck fail until one handler exists, then the server, the client,
 * the mock and the contract suite follow with no other source change.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectRoot } from '../../src/contract/project.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { openStore } from '../../src/store/open-store.js';
import { binCommand, typescriptCommand } from '../../tools/process/commands.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';
import { startMock } from '../../tools/process/mock.js';
import { copyProject } from '../../tools/process/project-copy.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { runCommand } from '../../tools/process/run-command.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { addGetItemHandler, addPaths } from './helpers/spec-edits.js';

// The project's own tools come along: the copy's generator finds the copy as its project root.
const project = copyProject('add-operation-');
const copy = project.root;
afterAll(() => project.remove());

const inCopy = (file: string) => join(copy, file);

beforeAll(async () => {
  // The tests come along and are typechecked too, as `npm run typecheck` (part of `npm test`) does: a test
  // fixture that lists the handlers by hand would fail the developer's build though the server compiles.
  for (const file of ['test', 'vitest.config.ts']) cpSync(join(projectRoot, file), inCopy(file), { recursive: true });
  writeFileSync(
    inCopy('tsconfig.json'),
    JSON.stringify({
      extends: join(projectRoot, 'tsconfig.json'),
      compilerOptions: { typeRoots: [join(projectRoot, 'node_modules', '@types')] },
      include: ['src', 'tools', 'test', 'generated', 'vitest.config.ts'],
    }),
  );
  // As an editor leaves it: test/contract-suite/fixtures/get-item.yaml's paths, written at the end of the spec's.
  addPaths(copy);
  // A frontend's call to the new operation through the typed client; it must compile once types are regenerated.
  writeFileSync(
    inCopy('src/client/uses-get-item.ts'),
    `import { createApiClient } from './index.js';\nexport const readItem = (baseUrl: string, apiKey: string, id: string) => createApiClient({ baseUrl, apiKey }).GET('/items/{id}', { params: { path: { id } } });\n`,
  );
}, 60_000);

describe('adding GET /items/{id} to a copy of the project', () => {
  it('passes the contract lint and regenerates the types', async () => {
    const lint = await runCommand(binCommand('redocly', ['lint', '--config', inCopy('redocly.yaml')]), { cwd: copy });
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const generate = await runCommand([process.execPath, '--import', 'tsx', 'tools/generate/generate.ts'], { cwd: copy }); // the copy's own generator
    expect(generate.code, generate.stderr).toBe(0);
    expect(readFileSync(inCopy('generated/openapi.d.ts'), 'utf8')).toContain('getItem');
  });

  it('fails the typecheck, naming the missing handler, until one exists', async () => {
    const before = await runCommand(typescriptCommand(['-p', inCopy('tsconfig.json')]), { cwd: copy });
    expect(before.code).not.toBe(0);
    expect(before.stdout).toMatch(/src\/server\/operations\.ts\(\d+,\d+\): error TS\d+: Property 'getItem' is missing/);
    // Nothing else fails: the client call and every other module, the tests' fixtures included, already follow the new types.
    const errors = before.stdout
      .trim()
      .split('\n')
      .filter((line) => /error TS/.test(line));
    expect(errors, errors.join('\n')).toHaveLength(1);

    addGetItemHandler(copy);
    expect(readFileSync(inCopy('src/server/operations.ts'), 'utf8')).toContain('getItem:');
    const after = await runCommand(typescriptCommand(['-p', inCopy('tsconfig.json')]), { cwd: copy });
    expect(after.code, after.stdout).toBe(0);
  });

  it("passes the project's own spec-level tests untouched: each reads what it expects from the spec", async () => {
    for (const file of ['biome.jsonc', 'README.md', 'docs']) cpSync(join(projectRoot, file), inCopy(file), { recursive: true });
    const files = [
      'test/contract-suite/cases.test.ts',
      'test/contract-suite/any-operation.test.ts',
      'test/contract/',
      'test/account/spec.test.ts',
      'test/robustness/fuzz.slow.test.ts',
      'test/http/cors-headers.test.ts',
      'test/tools/check/stale-names.test.ts',
    ];
    const run = await runCommand([join(projectRoot, 'node_modules', '.bin', 'vitest'), 'run', '--project', 'default', '--project', 'slow', ...files], {
      cwd: copy,
      env: { FUZZ_RUNS: process.env['FUZZ_RUNS'] ?? '2000', NO_COLOR: '1' },
      timeoutMs: 600_000,
    });
    expect(run.code, run.stdout.slice(-4000) + run.stderr.slice(-2000)).toBe(0);
    expect(run.stdout).toMatch(/Tests {2}\d+ passed/);
  });

  it('is served, mocked, called through the client and covered by the contract suite with no other change', async () => {
    // A user with items of their own, one shared with them, and a key, written as the server would.
    const database = scratchDatabase('add-operation-');
    const store = await openStore({ databasePath: database.path });
    const at = '2026-01-01T00:00:00.000Z';
    const [ann, bob] = [await store.createUser('ann', at), await store.createUser('bob', at)];
    const own = await store.createItem(ann.id, 'Mine', at);
    await store.createItem(ann.id, 'Also mine', '2026-01-02T00:00:00.000Z');
    const others = await store.createItem(bob.id, 'Not shared', at);
    const { key, digest, hint } = generateApiKey();
    await store.createKey(ann.id, digest, hint, at);
    await store.close();

    const server = await startCopy(database.path);
    try {
      const url = server.url;
      const get = (id: string, method = 'GET') => fetch(`${url}/items/${id}`, { method, headers: { Authorization: `Bearer ${key}` } });
      const found = await get(own.id);
      expect(found.status).toBe(200);
      expect(await found.json()).toEqual(own);
      expect((await get(others.id)).status, 'an item neither owned nor shared').toBe(404);
      expect((await get('itm_0000000000000000')).status).toBe(404);
      const malformed = await get('not-an-id');
      expect(malformed.status).toBe(422);
      expect(((await malformed.json()) as { errors: unknown[] }).errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ in: 'path', pointer: '/id' })]),
      );
      const other = await get(own.id, 'PUT');
      expect([other.status, other.headers.get('allow')]).toEqual([405, 'GET, HEAD']);

      // The typed client, as a frontend would call it, from the copy's own source.
      const { readItem } = (await import(inCopy('src/client/uses-get-item.ts'))) as {
        readItem: (baseUrl: string, apiKey: string, id: string) => Promise<{ data?: unknown }>;
      };
      expect((await readItem(url, key, own.id)).data).toEqual(own);

      // The copy's contract suite derives cases for the new operation and passes.
      const suite = await runCommand([process.execPath, '--import', 'tsx', 'src/contract-suite/main.ts', '--base-url', url, '--token', key, '--json'], {
        cwd: copy,
      });
      const report = JSON.parse(suite.stdout) as { operations: Array<{ operationId: string; cases: number; failed: number }> };
      expect(suite.code, suite.stdout.slice(0, 2000) + suite.stderr).toBe(0);
      const getItem = report.operations.find((operation) => operation.operationId === 'getItem');
      expect(getItem?.cases).toBeGreaterThan(5);
      expect(getItem?.failed).toBe(0);
    } finally {
      await server.stop();
    }

    // The mock serves it from the spec's example.
    const mock = await startMock({ spec: inCopy('openapi/openapi.yaml') });
    try {
      const mocked = await fetch(`${mock.url}/items/itm_0a1b2c3d4e5f6g7h`, { headers: { Authorization: 'Bearer anything' } });
      expect(mocked.status).toBe(200);
      expect(await mocked.json()).toMatchObject({ id: 'itm_0a1b2c3d4e5f6g7h' });
    } finally {
      await mock.stop();
      database.remove();
    }
  });

  it('a request field the handlers ignore fails the contract suite, naming the operation and the field', async () => {
    const spec = parse(readFileSync(inCopy('openapi/openapi.yaml'), 'utf8')) as Record<string, any>;
    spec['components']['schemas']['ListRequest']['properties']['titlePrefix'] = {
      type: 'string',
      maxLength: 50,
      description: 'Only items whose title starts with this.',
      example: 'A',
    };
    writeFileSync(inCopy('openapi/openapi.yaml'), stringify(spec, { lineWidth: 0 }));
    expect((await runCommand([process.execPath, '--import', 'tsx', 'tools/generate/generate.ts'], { cwd: copy })).code).toBe(0);
    const database = scratchDatabase('ignored-field-');
    const store = await openStore({ databasePath: database.path });
    const at = '2026-01-01T00:00:00.000Z';
    const ann = await store.createUser('ann', at);
    for (const title of ['Apple', 'Banana', 'Avocado']) await store.createItem(ann.id, title, at);
    const { key, digest, hint } = generateApiKey();
    await store.createKey(ann.id, digest, hint, at);
    await store.close();
    const server = await startCopy(database.path);
    try {
      const suite = await runCommand([process.execPath, '--import', 'tsx', 'src/contract-suite/main.ts', '--base-url', server.url, '--token', key], {
        cwd: copy,
      });
      expect(suite.code).toBe(1);
      expect(suite.stdout).toMatch(/listOwnItems[^\n]*titlePrefix|titlePrefix[^\n]*listOwnItems/);
      expect(suite.stdout).toMatch(/ignored/i);
    } finally {
      await server.stop();
      database.remove();
    }
  });
});

/** The copy's own server on a free port, held to the contract on every answer. */
async function startCopy(databasePath: string): Promise<LaunchedProcess & { url: string }> {
  const server = launch([process.execPath, '--import', 'tsx', 'src/server/main.ts'], {
    cwd: copy,
    env: { HOST: '127.0.0.1', PORT: '0', DATABASE_PATH: databasePath, LOG_LEVEL: 'warn', RESPONSE_VALIDATION: 'strict', NODE_ENV: 'development' },
  });
  const [, url = ''] = await waitForOutput(server, /^Listening on (\S+)$/m, { timeoutMs: 60_000 });
  return { ...server, url };
}

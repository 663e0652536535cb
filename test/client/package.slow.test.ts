/**
 * The client as a frontend project gets it: `npm run build:client`'s package, packed by `npm pack`,
 * installed from the tarball into an empty project with npm and no network (its dependencies packed
 * from this project's node_modules), then a small consumer and every typed-client sample of the docs
 * typecheck against it, and the consumer runs. About 15 s (npm and two compilations).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { readContracts } from '../../src/contract/project.js';
import { loadSpec } from '../../src/contract/spec.js';
import { codeSamples, SAMPLE_LANGUAGES } from '../../src/docs/code-samples.js';
import { buildClientPackage, CLIENT_PACKAGE_NAME, clientVersion, packClientPackage } from '../../tools/client-package/client-package.js';
import { typescriptCommand } from '../../tools/process/commands.js';
import { dependencyClosure, installOffline, run } from '../helpers/offline-install.js';

const scratch = mkdtempSync(join(tmpdir(), 'client-package-'));
const consumer = join(scratch, 'consumer');
let tarball: string;
let files: string[];

const CONSUMER = `
import { createApiClient, paginate, ProblemError, type ItemPage, type Problem } from '${CLIENT_PACKAGE_NAME}';
import { createAccountClient, type ApiKey } from '${CLIENT_PACKAGE_NAME}/account';

const seen: string[] = [];
const page: ItemPage = { items: [], nextCursor: null };
const api = createApiClient({
  baseUrl: 'http://api.test/',
  apiKey: ' tka_pasted_with_a_newline\\n',
  fetch: async (request: Request) => {
    seen.push(\`\${request.method} \${request.url} \${request.headers.get('authorization')}\`);
    return new Response(JSON.stringify(page), { headers: { 'content-type': 'application/json' } });
  },
});
const { data, error } = await api.POST('/', { body: { sort: 'desc', limit: 2 } });
const problem: Problem | undefined = error;
// @ts-expect-error: sort is asc or desc
await api.POST('/shared', { body: { sort: 'up' } });
const pages: ItemPage[] = [];
for await (const each of paginate(api, 'listSharedItemsByQuery', { limit: 1 })) pages.push(each);
const keys: ApiKey[] = [];
const account = createAccountClient({ baseUrl: 'http://web.test/api', fetch: async () => new Response('[]', { headers: { 'content-type': 'application/json' } }) });
console.log(JSON.stringify({ seen, items: data?.items.length, problem: problem ?? null, pages: pages.length, keys: keys.length, account: typeof account.GET, errorClass: ProblemError.name }));
`;

beforeAll(async () => {
  tarball = await packClientPackage(await buildClientPackage(join(scratch, 'package')), join(scratch, 'packed'));
  files = (await run(['tar', '-tzf', tarball], scratch)).trim().split('\n').sort();
  const manifest = JSON.parse(readFileSync(join(scratch, 'package', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  await installOffline(consumer, tarball, Object.keys(manifest.dependencies));
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the client package', () => {
  it('holds the compiled clients, their declarations and the generated types, nothing of the server', () => {
    expect(files).toEqual([
      'package/README.md',
      'package/generated/account.d.ts',
      'package/generated/openapi.d.ts',
      'package/package.json',
      'package/src/client/account.d.ts',
      'package/src/client/account.js',
      'package/src/client/base-url.d.ts',
      'package/src/client/base-url.js',
      'package/src/client/index.d.ts',
      'package/src/client/index.js',
      'package/src/client/mock-only-headers.d.ts',
      'package/src/client/mock-only-headers.js',
    ]);
  });

  it('installs from its tarball with npm, offline, bringing openapi-fetch and nothing else', () => {
    const installed = readdirSync(join(consumer, 'node_modules'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .flatMap((entry) =>
        entry.name.startsWith('@') ? readdirSync(join(consumer, 'node_modules', entry.name)).map((name) => `${entry.name}/${name}`) : [entry.name],
      )
      .sort();
    expect(installed).toEqual([CLIENT_PACKAGE_NAME, ...[...dependencyClosure('openapi-fetch')].sort()]);
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', CLIENT_PACKAGE_NAME, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest['dependencies']).toEqual({ 'openapi-fetch': expect.any(String) });
    // The contract's info.version with the contracts' hash as a pre-release, in the manifest and the tarball's name.
    expect(manifest['version']).toBe(clientVersion());
    expect(manifest['version']).toMatch(new RegExp(`^${(loadSpec()['info'] as { version: string }).version.replaceAll('.', '\\.')}-spec\\.[0-9a-f]{8,}$`));
    expect(basename(tarball)).toBe(`bearer-list-api-client-${clientVersion()}.tgz`);
  });

  it("typechecks a consumer and every typed-client sample of the docs, and the consumer runs (the key's whitespace trimmed)", async () => {
    writeFileSync(join(consumer, 'consumer.ts'), CONSUMER);
    mkdirSync(join(consumer, 'samples'));
    for (const contract of readContracts()) {
      const spec = loadSpec(contract.spec);
      for (const operation of readOperations(spec)) {
        const sample = codeSamples(spec, contract.name, operation).find((candidate) => candidate.label === SAMPLE_LANGUAGES.client.label);
        writeFileSync(join(consumer, 'samples', `${contract.name}-${operation.operationId}.ts`), `declare const API_KEY: string;\n${sample?.source}`);
      }
    }
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          types: [],
          strict: true,
          exactOptionalPropertyTypes: true,
          outDir: 'out',
        },
        include: ['consumer.ts', 'samples'],
      }),
    );
    await run(typescriptCommand(['-p', 'tsconfig.json']), consumer);
    const output = JSON.parse(await run([process.execPath, join('out', 'consumer.js')], consumer)) as Record<string, unknown>;
    expect(output).toEqual({
      seen: [
        'POST http://api.test/ Bearer tka_pasted_with_a_newline',
        'POST http://api.test/shared Bearer tka_pasted_with_a_newline',
        'GET http://api.test/shared?limit=1 Bearer tka_pasted_with_a_newline',
      ],
      items: 0,
      problem: null,
      pages: 1,
      keys: 0,
      account: 'function',
      errorClass: 'ProblemError',
    });
  });
});

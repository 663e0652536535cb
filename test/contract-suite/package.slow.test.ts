/**
 * The contract suite as another team gets it (issue 31 point 6): `npm run build:contract-suite`'s package, packed by
 * `npm pack`, installed from the tarball into an empty folder with npm and no network, then run by its `bin` on a copy
 * of this project's public spec against this project's server, as the team would run it on theirs. Nothing of this
 * repository is in reach of the installed tool: the spec is a file beside it, the server a URL.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readContractPaths } from '../../src/contract/project.js';
import { buildSuitePackage, packSuitePackage, SUITE_BIN, SUITE_PACKAGE_NAME, suiteVersion } from '../../tools/contract-suite-package/contract-suite-package.js';
import { makeKey } from '../../tools/process/make-key.js';
import { runCommand } from '../../tools/process/run-command.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';
import { installOffline, run } from '../helpers/offline-install.js';

const scratch = mkdtempSync(join(tmpdir(), 'suite-package-'));
const consumer = join(scratch, 'consumer');
let tarball = '';
let server: ServerProcess;
let key = '';

beforeAll(async () => {
  tarball = await packSuitePackage(await buildSuitePackage(join(scratch, 'package')), join(scratch, 'packed'));
  const manifest = JSON.parse(readFileSync(join(scratch, 'package', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  await installOffline(consumer, tarball, Object.keys(manifest.dependencies));
  copyFileSync(readContractPaths().spec, join(consumer, 'openapi.yaml'));
  const database = join(scratch, 'api.sqlite');
  server = await startServer({ databasePath: database, env: { RATE_LIMIT_REQUESTS: '1000000' } });
  ({ key } = await makeKey(database, 'ann'));
}, 240_000);

afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the contract suite as a package of its own', () => {
  it('is one bundled bin with its own version, README and changelog, and npm dependencies only', async () => {
    const files = (await run(['tar', '-tzf', tarball], scratch)).trim().split('\n').sort();
    expect(files).toEqual(['package/CHANGELOG.md', 'package/README.md', `package/bin/${SUITE_BIN}.mjs`, 'package/package.json']);
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', SUITE_PACKAGE_NAME, 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(suiteVersion());
  });

  it('runs from the install on a spec file against a running API, and passes this project’s server', { timeout: 180_000 }, async () => {
    const result = await runCommand(
      [
        'npx',
        '--offline',
        SUITE_BIN,
        '--spec',
        'openapi.yaml',
        '--base-url',
        server.url,
        '--credential',
        `bearerAuth=${key}`,
        '--examples',
        '5',
        '--seed',
        '7',
      ],
      { cwd: consumer, timeoutMs: 170_000 },
    );
    expect(result.code, `${result.stdout.slice(-3000)}${result.stderr.slice(-2000)}`).toBe(0);
    expect(result.stdout).toMatch(/PASSED/);
  });

  it('says what to give when no spec is named, with exit 2', async () => {
    const result = await runCommand(['npx', '--offline', SUITE_BIN, '--base-url', server.url, '--token', key], { cwd: consumer, timeoutMs: 60_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/give the OpenAPI document to check: --spec <file>/);
  });
});

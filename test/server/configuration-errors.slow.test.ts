/**
 * A server given a configuration it cannot serve with stops before it opens anything, with one line
 * `configuration error: …` on stderr and exit code 2: never a stack trace, never exit 1 (that is for the
 * database being away). Slow: each case starts a real process.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { runCommand } from '../../tools/process/run-command.js';
import { postgresServerUrl, withDatabase } from '../helpers/postgres.js';

const serve = (env: Record<string, string>, prefix: string[] = []) =>
  runCommand([...prefix, ...tsxCommand('src/server/main.ts')], { env: { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: ':memory:', ...env }, timeoutMs: 30_000 });

function expectConfigurationError(result: { code: number | null | undefined; stderr: string }, message: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(new RegExp(`^configuration error: ${message.source}`, 'm'));
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe('a configuration the server cannot serve with', () => {
  it.each([
    { env: { HOST: '999.1.1.1' }, message: /HOST "999\.1\.1\.1" does not resolve to an address/ },
    { env: { HOST: '192.0.2.1' }, message: /HOST "192\.0\.2\.1" is not an address of this machine/ },
    { env: { NODE_ENV: 'prodution' }, message: /NODE_ENV must be one of development, test, production/ },
    { env: { DATABASE_POOL_SIZE: '0' }, message: /DATABASE_POOL_SIZE must be a whole number from 1/ },
    { env: { TRUSTED_PROXIES: '10.0.0.1, proxy.internal' }, message: /TRUSTED_PROXIES must list IP addresses or CIDR ranges .*"proxy\.internal" is neither/ },
    // DATABASE_PATH set empty is unset: production without a database named, as when a DATABASE_URL secret did not arrive.
    { env: { NODE_ENV: 'production', DATABASE_PATH: '' }, message: /NODE_ENV=production needs its database named/ },
  ])('$env ends in a configuration error, exit 2', { timeout: 40_000 }, async ({ env, message }) => {
    expectConfigurationError(await serve(env), message);
  });

  it('a DATABASE_URL naming a database that does not exist ends in a configuration error naming it', { timeout: 60_000 }, async () => {
    const url = withDatabase(await postgresServerUrl(), 'no_such_database_21');
    expectConfigurationError(await serve({ DATABASE_URL: url }), /DATABASE_URL names the database "no_such_database_21", which does not exist/);
  });

  it('a data path this account cannot write ends in a configuration error naming DATABASE_PATH', { timeout: 40_000 }, async () => {
    // As root every folder is writable: run as nobody, on a folder only root may write, as a non-root user meets the default path.
    const runuser = process.getuid?.() === 0 ? whichRunuser() : undefined;
    if (!runuser) return;
    const folder = mkdtempSync(join(tmpdir(), 'root-only-'));
    const tree = treeNobodyCanRead(runuser);
    try {
      const result = await runCommand(
        [runuser, '-u', 'nobody', '--', 'env', `PATH=${process.env['PATH']}`, process.execPath, '--import', 'tsx', join(tree.root, 'src/server/main.ts')],
        { cwd: tree.root, env: { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(folder, 'data', 'api.sqlite'), HOME: folder }, timeoutMs: 30_000 },
      );
      expectConfigurationError(result, /cannot create or open the database at .* \(permission denied\): uid 65534 cannot write there\. Set DATABASE_PATH/);
    } finally {
      tree.remove();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/**
 * The project as nobody can read it: the checkout itself, or, when it sits in a folder only root may enter (a fresh
 * clone in a 0700 temporary folder, as CI makes), a hard-linked copy in a folder anyone may enter.
 */
function treeNobodyCanRead(runuser: string): { root: string; remove(): void } {
  const readable = spawnSync(runuser, ['-u', 'nobody', '--', 'test', '-r', join(projectRoot, 'src/server/main.ts')]).status === 0;
  if (readable) return { root: projectRoot, remove: () => {} };
  const root = mkdtempSync(join(tmpdir(), 'readable-project-'));
  chmodSync(root, 0o755);
  execFileSync('cp', ['-al', `${projectRoot}/.`, root]);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

function whichRunuser(): string | undefined {
  try {
    return execFileSync('which', ['runuser'], { encoding: 'utf8', cwd: projectRoot }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The production artefact as an operator installs it (issue 21, item 5): `npm run build`, then only the
 * artefact's files (`tools/build/artefact.ts`: no `src/`) in a fresh folder, `npm ci --omit=dev` there, and
 * `npm run start:prod`: both listeners and the ops listener's /readyz answer, the pages come prebuilt from `dist/pages/`, the keys CLI runs
 * compiled (`keys:prod`), and neither TypeScript, tsx nor esbuild is installed, so none of them can have been
 * loaded. Before the build, `start:prod` names the fix. Slow: the install compiles better-sqlite3 (80 to 100 s
 * on two quiet cores, five minutes and more when they are shared); it prints its time and the install's size.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../../src/cli/port-to-bind-later.js';
import { copyArtefact } from '../../../tools/build/artefact.js';
import { launch } from '../../../tools/process/launch.js';
import { waitForOutput } from '../../../tools/process/ready.js';
import { runCommand } from '../../../tools/process/run-command.js';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(prefix: string): string {
  const made = mkdtempSync(join(tmpdir(), prefix));
  folders.push(made);
  return made;
}

const npm = (args: string[], cwd: string, env: Record<string, string> = {}) => runCommand(['npm', ...args], { cwd, env, timeoutMs: 900_000 });
const kibibytes = (path: string) => Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]);

describe('the production artefact', () => {
  it('without dist/, start:prod and keys:prod name `npm run build` instead of a stack trace', async () => {
    const root = folder('artefact-unbuilt-');
    copyArtefact(root, { without: ['dist/src', 'dist/pages'] });
    for (const script of ['start:prod', 'keys:prod']) {
      const run = await npm(['run', script, '--silent'], root);
      expect(run.code, script).toBe(1);
      expect(run.stderr).toContain('run `npm run build` first');
      expect(run.stderr).not.toMatch(/MODULE_NOT_FOUND|\n\s+at /);
    }
  });

  it('installs with npm ci --omit=dev and serves both listeners with no TypeScript, tsx or esbuild', { timeout: 1_000_000 }, async () => {
    const built = await npm(['run', 'build'], process.cwd());
    expect(built.code, built.stderr).toBe(0);
    const root = folder('artefact-');
    copyArtefact(root);
    expect(existsSync(join(root, 'src'))).toBe(false);

    const started = Date.now();
    const installed = await npm(['ci', '--omit=dev', '--no-audit', '--no-fund'], root);
    const seconds = (Date.now() - started) / 1000;
    expect(installed.code, installed.stderr).toBe(0);
    for (const absent of ['tsx', 'esbuild', 'typescript', 'typescript-native', '@esbuild', 'vitest'])
      expect(existsSync(join(root, 'node_modules', absent)), `node_modules/${absent}`).toBe(false);
    const modules = kibibytes(join(root, 'node_modules'));
    const dist = kibibytes(join(root, 'dist'));
    console.log(
      `production install: npm ci --omit=dev took ${seconds.toFixed(0)} s; node_modules ${(modules / 1024).toFixed(1)} MiB + dist ${(dist / 1024).toFixed(1)} MiB`,
    );

    const keys = await npm(['run', 'keys:prod', '--silent', '--', 'create', '--user', 'ann', '--json'], root);
    expect(keys.code, keys.stderr).toBe(0);
    const { key } = JSON.parse(keys.stdout) as { key: string };

    const opsPort = await portToBindLater();
    const server = launch(['npm', 'run', 'start:prod', '--silent'], {
      cwd: root,
      env: {
        PORT: '0',
        WEB_PORT: '0',
        HOST: '127.0.0.1',
        OPS_PORT: String(opsPort),
        NODE_ENV: 'production',
        DATABASE_PATH: 'data/api.sqlite',
        LOG_LEVEL: 'warn',
        SHUTDOWN_DELAY_SECONDS: '0',
      },
    });
    try {
      const [, api = '', web = ''] = await waitForOutput(server, /^Listening on (\S+)\nWeb application on (\S+)$/m, { timeoutMs: 30_000 });
      const shared = await fetch(`${api}/shared`, { headers: { authorization: `Bearer ${key}` } });
      expect(shared.status).toBe(200);
      expect(await shared.json()).toMatchObject({ items: [] });
      const page = await fetch(`${web}/sign-in`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('/assets/app.js');
      const script = await fetch(`${web}/assets/app.js`);
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(1000);
      expect((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    // The demo data from the artefact: what it says to run next is the production install's script (npm run keys needs tsx).
    const seeded = await npm(['run', 'seed:prod', '--silent'], root);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toContain('npm run keys:prod -- create --user demo');
    // The operator's data commands run from the artefact too (docs/data.md): a backup of the database just served.
    const backup = await npm(['run', 'backup:prod', '--silent', '--', '--out', join(root, 'api.backup')], root);
    expect(backup.code, backup.stderr).toBe(0);
    expect(existsSync(join(root, 'api.backup'))).toBe(true);
  });
});

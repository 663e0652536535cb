/**
 * deploy/kubernetes/deployment.yaml gives the server no writable volume: a read-only root filesystem, the Secret's
 * files mounted read-only (0440, the pod's group), uid and gid 10001. This runs the server as the Deployment sets it
 * (its environment, its ports changed to free ones on 127.0.0.1) in a mount namespace where / is read-only and
 * /run/secrets/bearer-list-api holds the Secret's files, as that user, on PostgreSQL: it starts, is ready, serves
 * both listeners, and drains and exits 0 on SIGTERM, without a write refused. Run from source (the built `dist/` may
 * lag the tree), with tsx's cache off, since tsx is not in the image.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { SERVER_NODE_FLAGS } from '../../src/config/node-flags.js';
import { projectRoot } from '../../src/contract/project.js';
import { launch } from '../../tools/process/launch.js';
import { makeKey } from '../../tools/process/make-key.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { stderrBeyondGreeting } from '../../tools/process/server.js';
import { freshDatabase } from '../helpers/postgres.js';

const deployment = parse(readFileSync(resolve(projectRoot, 'deploy/kubernetes/deployment.yaml'), 'utf8')) as IDeployment;
const pod = deployment.spec?.template.spec;
const container = pod?.containers.find((candidate) => candidate.name === 'server');
const mount = container?.volumeMounts?.find((candidate) => candidate.name === 'secrets');
const items = pod?.volumes?.find((volume) => volume.name === 'secrets')?.secret?.items ?? [];

/**
 * In a new mount namespace: a tmpfs over /run with the Secret's files (copied from `source`, mode 0440, group
 * `gid`), then /run and / read-only; a write to / must fail, or the script stops; then node, as `uid`:`gid`.
 */
function namespaceScript(source: string, target: string, uid: number, gid: number): string {
  return [
    'set -e',
    'mount -t tmpfs -o mode=0755 tmpfs /run',
    `mkdir -p ${target}`,
    `cp ${source}/* ${target}/`,
    `chown root:${gid} ${target}/*`,
    `chmod 0440 ${target}/*`,
    'mount -o remount,ro /run',
    'mount -o remount,bind,ro /',
    'if touch /read-only-probe 2>/dev/null; then echo "the root filesystem is writable" >&2; exit 3; fi',
    `exec setpriv --reuid ${uid} --regid ${gid} --clear-groups node ${SERVER_NODE_FLAGS.join(' ')} --import tsx src/server/main.ts`,
  ].join('\n');
}

/**
 * Lets any account pass through the folders above the project (search permission only, `o+x`), as an image's /app
 * lets the pod's user: a checkout under a private temporary folder (CI's clone, 0700) would otherwise keep uid 10001
 * from reading the code it runs. Returns what puts each folder's mode back.
 */
function letEveryonePassThrough(folder: string): () => void {
  const changed: Array<[string, number]> = [];
  for (let current = folder; ; current = dirname(current)) {
    const mode = statSync(current).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(current, mode | 0o001);
      changed.push([current, mode]);
    }
    if (dirname(current) === current) break;
  }
  return () => {
    for (const [current, mode] of changed) chmodSync(current, mode);
  };
}

describe("the Deployment's read-only root filesystem", () => {
  it('is enough for the server on PostgreSQL: it starts, serves, drains and exits 0 without a refused write', { timeout: 120_000 }, async () => {
    const uid = pod?.securityContext?.runAsUser ?? 0;
    const gid = pod?.securityContext?.fsGroup ?? 0;
    expect(uid).toBeGreaterThan(0);
    expect(container?.securityContext?.readOnlyRootFilesystem).toBe(true);
    const databaseUrl = await freshDatabase('deploy_read_only_root');
    const folder = mkdtempSync(join(tmpdir(), 'read-only-root-'));
    // The secrets' source files, readable only by root (the namespace script copies them): the test's own values.
    const source = join(folder, 'secrets');
    mkdirSync(source, { mode: 0o700 });
    try {
      const values: Record<string, string> = { 'database-url': databaseUrl };
      for (const item of items) if (item.key !== 'database-url') values[item.key] = randomBytes(32).toString('base64');
      for (const item of items) writeFileSync(join(source, item.path), `${values[item.key]}\n`, { mode: 0o600 });
      chownSync(source, 0, 0);
      chmodSync(source, 0o700);

      const [port, webPort, opsPort] = await Promise.all([portToBindLater(), portToBindLater(), portToBindLater()]);
      const env: Record<string, string> = Object.fromEntries((container?.env ?? []).map((variable) => [variable.name, variable.value ?? '']));
      Object.assign(env, { HOST: '127.0.0.1', OPS_HOST: '127.0.0.1', PORT: String(port), WEB_PORT: String(webPort), OPS_PORT: String(opsPort) });
      const restoreModes = letEveryonePassThrough(projectRoot);
      const server = launch(['unshare', '--mount', '--propagation', 'private', 'sh', '-c', namespaceScript(source, mount?.mountPath ?? '', uid, gid)], {
        env: { ...env, TSX_DISABLE_CACHE: '1', SHUTDOWN_DELAY_SECONDS: '1' },
      });
      try {
        await waitForOutput(server, /^Listening on /m, { timeoutMs: 60_000 });
        const ops = `http://127.0.0.1:${opsPort}`;
        expect((await fetch(`${ops}/readyz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${webPort}/`)).status).toBe(200);
        const { key } = await makeKey(':unused:', 'ann', { DATABASE_URL: databaseUrl });
        expect((await fetch(`http://127.0.0.1:${port}/shared`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
        expect((await fetch(`${ops}/metrics`)).status).toBe(200);
      } finally {
        const exit = await server.stop({ graceMs: 20_000 });
        restoreModes();
        const output = `${server.stdout()}${server.stderr()}`;
        expect(exit, server.outputTail()).toEqual({ code: 0, signal: null });
        expect(output).not.toMatch(/EROFS|read-only file system|root filesystem is writable/i);
        expect(stderrBeyondGreeting(server.stderr()).trim(), 'stderr beyond the greeting').toBe('');
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

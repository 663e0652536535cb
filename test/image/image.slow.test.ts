/**
 * `npm run test:image` (and `npm run test:slow`): the Dockerfile built with buildah on the stand-in base
 * (tools/image/stand-in-base.ts: Debian bookworm from debootstrap and this machine's Node, since no image
 * registry is reachable), then the image's own command run in a working container with `--isolation chroot`
 * (the host's network: the server listens on this machine's loopback, on free ports given through the
 * environment). From outside: the public API, the web application's page and its prebuilt script, and the ops
 * listener's /livez and /readyz. Inside (its files, through `buildah mount`): a user that is not root, no
 * TypeScript, tsx or esbuild installed, and the database written to the data volume by that user. Needs root (debootstrap, buildah's store); the first run makes the
 * stand-in base (about a minute) and installs the packages (minutes); later runs reuse both.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { SERVER_NODE_FLAGS } from '../../src/config/node-flags.js';
import { buildah, imageId, imageSize } from '../../tools/image/buildah.js';
import { ensureStandInBase } from '../../tools/image/stand-in-base.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';
import { waitForOutput } from '../../tools/process/ready.js';

const IMAGE = 'localhost/bearer-list-api:test';

let container = '';
let root = '';
let server: LaunchedProcess | undefined;
const ports = { api: 0, web: 0, ops: 0 };

interface ImageConfig {
  Cmd?: string[];
  Healthcheck?: { Test?: string[] };
  User?: string;
  Env?: string[];
  WorkingDir?: string;
  Volumes?: Record<string, unknown>;
  ExposedPorts?: Record<string, unknown>;
}

let config: ImageConfig;

beforeAll(async () => {
  const base = await ensureStandInBase((line) => console.log(line));
  const previous = await imageId(IMAGE);
  const started = Date.now();
  await buildah(
    ['build', '--isolation', 'chroot', '--layers', '--format', 'docker', '--build-arg', `BASE=${base}`, '--tag', IMAGE, '--file', 'Dockerfile', '.'],
    {
      timeoutMs: 1_500_000,
    },
  );
  // The image this run replaced, untagged now: removed, so runs do not pile up images (the layers of the build stay, for the next run).
  if (previous !== undefined && previous !== (await imageId(IMAGE))) await buildah(['rmi', previous]);
  console.log(`image: built ${IMAGE} in ${((Date.now() - started) / 1000).toFixed(0)} s; ${await imageSize(IMAGE)}`);
  config = (JSON.parse((await buildah(['inspect', '--type', 'image', IMAGE])).stdout) as { Docker: { config: ImageConfig } }).Docker.config;
  container = (await buildah(['from', '--pull-never', IMAGE])).stdout.trim();
  // The container's files, read from here: what a `buildah run` would print is not needed to see them.
  root = (await buildah(['mount', container])).stdout.trim();
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
  if (container) await buildah(['rm', container]);
});

/** The uid of the image's user `api`, from its /etc/passwd. */
function apiUid(): number {
  const line = readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('api:'));
  return Number(line?.split(':')[2] ?? Number.NaN);
}

/** The processes below `pid`, from each process's parent in /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // The parent is the second field after the command name, which is in parentheses and may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Ended while being read.
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    frontier = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

/** `buildah run` in the working container, as the image's user, in its working directory, with its environment and `env` on top. */
function run(argv: readonly string[], env: Record<string, string> = {}): string[] {
  return [
    'buildah',
    'run',
    '--isolation',
    'chroot',
    ...Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
    container,
    '--',
    ...argv,
  ];
}

describe('the container image', () => {
  it('runs as a user that is not root, keeps /app/data on a volume, exposes the ops port, and has no TypeScript, tsx or esbuild', async () => {
    expect(config.User).toBe('api');
    expect(Object.keys(config.Volumes ?? {})).toEqual(['/app/data']);
    expect(Object.keys(config.ExposedPorts ?? {})).toContain('9464/tcp');
    expect(config.Env).toContain('OPS_PORT=9464');
    expect(config.Healthcheck?.Test?.join(' ')).toMatch(/\/livez/);
    expect(apiUid()).toBeGreaterThan(0);
    const modules = readdirSync(join(root, 'app/node_modules'));
    expect(modules).toContain('better-sqlite3');
    for (const absent of ['tsx', 'esbuild', 'typescript', 'typescript-native', 'vitest']) expect(modules).not.toContain(absent);
    expect(readdirSync(join(root, 'app'))).not.toContain('src');
    expect(statSync(join(root, 'app/data')).uid).toBe(apiUid());
  });

  it('holds no setuid or setgid program (the base ships su, passwd, mount...)', () => {
    const privileged: string[] = [];
    const walk = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.isFile() && statSync(path).mode & 0o6000) privileged.push(path.slice(root.length));
      }
    };
    walk(root);
    expect(privileged).toEqual([]);
  });

  it("serves both listeners and the probes with the image's own command", { timeout: 60_000 }, async () => {
    // node itself (PID 1 gets the runtime's SIGTERM), with the server's production V8 flags.
    expect(config.Cmd).toEqual(['node', ...SERVER_NODE_FLAGS, 'bin/run-built.mjs', 'server']);
    ports.api = await portToBindLater();
    ports.web = await portToBindLater();
    ports.ops = await portToBindLater();
    // The image listens on every address (HOST=0.0.0.0), as a container must; here it shares this machine's network, so loopback only.
    server = launch(
      run(config.Cmd ?? [], { HOST: '127.0.0.1', PORT: String(ports.api), WEB_PORT: String(ports.web), OPS_HOST: '127.0.0.1', OPS_PORT: String(ports.ops) }),
    );
    await waitForOutput(server, /^Web application on /m, { timeoutMs: 45_000 });
    const livez = await fetch(`http://127.0.0.1:${ports.ops}/livez`);
    expect(livez.status).toBe(200);
    const readyz = await fetch(`http://127.0.0.1:${ports.ops}/readyz`);
    expect(readyz.status, await readyz.clone().text()).toBe(200);
    const api = await fetch(`http://127.0.0.1:${ports.api}/shared`);
    expect(api.status).toBe(401);
    expect(api.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const page = await fetch(`http://127.0.0.1:${ports.web}/sign-in`);
    expect(page.status).toBe(200);
    expect((await (await fetch(`http://127.0.0.1:${ports.web}/assets/app.js`)).text()).length).toBeGreaterThan(1000);
    // The server in the chroot is a process of this machine: it runs as the image's user, not root, on the volume's database.
    const node = descendants(server.pid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('bin/run-built.mjs'));
    expect(node, 'the server process under buildah run').toBeDefined();
    expect(Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${node}/status`, 'utf8'))?.[1])).toBe(apiUid());
    expect(server.stdout() + server.stderr()).toContain('/app/data/api.sqlite');
  });
});

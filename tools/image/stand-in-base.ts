/**
 * A stand-in for `node:20-bookworm-slim` when no image registry is reachable (the image test on this
 * machine, and CI): Debian bookworm from a Debian mirror with `debootstrap --variant=minbase`, plus this
 * machine's own Node laid out as the official images lay it out (`/usr/local/bin/node`, `npm`, `npx`,
 * `/usr/local/include/node` for node-gyp). Passed to the Dockerfile as its `BASE` build argument. It takes
 * minutes, so it is made once per Node version and kept in buildah's store (`buildah rmi` it to remake it).
 * It trusts what this machine trusts (its CA bundle, for Node through `NODE_EXTRA_CA_CERTS`), so `npm ci` in
 * the build reaches the registry the way the host's npm does, through whatever TLS proxy the network has.
 * Needs root (debootstrap).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { runCommand } from '../process/run-command.js';
import { buildah, imageExists } from './buildah.js';

/** The stand-in's name: one per Node version, since it carries this machine's Node. */
export const STAND_IN_BASE = `localhost/bearer-list-api-stand-in-base:bookworm-node${process.versions.node}`;

const MIRROR = process.env['DEBIAN_MIRROR'] || 'http://deb.debian.org/debian';
/** Where the stand-in keeps the host's CA bundle (minbase has no ca-certificates). */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/** Makes the stand-in base unless buildah's store has it; resolves to its name. */
export async function ensureStandInBase(progress: (line: string) => void = () => {}): Promise<string> {
  if (await imageExists(STAND_IN_BASE)) return STAND_IN_BASE;
  if (process.getuid?.() !== 0) throw new Error(`making ${STAND_IN_BASE} needs root (debootstrap); run as root, or build on a real node:20 image`);
  const work = mkdtempSync('/var/tmp/stand-in-base-');
  const rootfs = join(work, 'rootfs');
  try {
    progress(`image: debootstrap bookworm (minbase) from ${MIRROR}, a few minutes`);
    const bootstrapped = await runCommand(['debootstrap', '--variant=minbase', 'bookworm', rootfs, MIRROR], { timeoutMs: 900_000 });
    if (bootstrapped.code !== 0)
      throw new Error(`debootstrap failed (exit ${bootstrapped.code}):\n${(bootstrapped.stdout + bootstrapped.stderr).slice(-4000)}`);
    layOutNode(rootfs);
    const trusted = trustHostCertificates(rootfs);
    // The runtime provides /dev; the device nodes debootstrap made would not copy into an image.
    for (const entry of readdirSync(join(rootfs, 'dev'))) rmSync(join(rootfs, 'dev', entry), { recursive: true, force: true });
    rmSync(join(rootfs, 'var/cache/apt/archives'), { recursive: true, force: true });
    progress(`image: committing ${STAND_IN_BASE}`);
    const container = (await buildah(['from', 'scratch'])).stdout.trim();
    try {
      await buildah(['copy', container, `${rootfs}/`, '/'], { timeoutMs: 600_000 });
      const env = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...(trusted ? [`NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`] : [])];
      await buildah(['config', ...env.flatMap((variable) => ['--env', variable]), '--cmd', 'node', container]);
      await buildah(['commit', '--rm', container, STAND_IN_BASE], { timeoutMs: 600_000 });
    } catch (error) {
      await runCommand(['buildah', 'rm', container]);
      throw error;
    }
    return STAND_IN_BASE;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** This machine's node, its headers and npm, where the official images have them. */
function layOutNode(rootfs: string): void {
  const prefix = resolve(dirname(process.execPath), '..');
  const local = join(rootfs, 'usr/local');
  cpSync(process.execPath, join(local, 'bin/node'));
  cpSync(join(prefix, 'include/node'), join(local, 'include/node'), { recursive: true });
  cpSync(join(prefix, 'lib/node_modules/npm'), join(local, 'lib/node_modules/npm'), { recursive: true, verbatimSymlinks: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin/npx'));
}

/** The host's CA bundle (the one its Node is told to trust, else the system's) in the stand-in; false when the host has none. */
function trustHostCertificates(rootfs: string): boolean {
  const bundle = [process.env['NODE_EXTRA_CA_CERTS'], CA_BUNDLE].find((file): file is string => !!file && existsSync(file));
  if (bundle === undefined) return false;
  mkdirSync(join(rootfs, dirname(CA_BUNDLE)), { recursive: true });
  cpSync(bundle, join(rootfs, CA_BUNDLE));
  return true;
}

/**
 * The typed clients (`src/client/`) as a package a frontend project installs on
 * its own: ES modules with type declarations, openapi-fetch as the only
 * dependency, nothing of the server. Compiled with `tsconfig.client.json`
 * (no Node types), laid out as in this repository so the declarations' imports
 * of `generated/` resolve, and packed by `npm pack` into a tarball.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { projectRoot, readContracts } from '../../src/contract/project.js';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec.js';
import { typescriptCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';

/** The package's name, as a frontend imports it (`@bearer-list-api/client`, `@bearer-list-api/client/account`). */
export const CLIENT_PACKAGE_NAME = '@bearer-list-api/client';

/** The entry points: the public API's client and the account API's, each with its declarations. */
const ENTRIES = { '.': 'src/client/index', './account': 'src/client/account' } as const;

interface RootManifest {
  dependencies: Record<string, string>;
}

/**
 * The first 8 hex digits of the SHA-256 of the contracts the package is typed from, as parsed (so a spec's
 * line endings or YAML layout do not count, any change of what it says does), in `redocly.yaml`'s order.
 * Lengthened to its first letter when all digits: a numeric pre-release identifier may not start with 0
 * (SemVer 2.0.0, item 9), and one with a letter never is numeric.
 */
export function specHash(documents: readonly OpenApiDocument[]): string {
  const digest = createHash('sha256');
  for (const document of documents) digest.update(JSON.stringify(document)).update('\n');
  const hex = digest.digest('hex');
  const short = hex.slice(0, 8);
  if (!/^\d+$/.test(short)) return short;
  const letter = hex.search(/[a-f]/);
  return letter < 0 ? `${hex}x` : hex.slice(0, letter + 1);
}

/**
 * The package's version: the public contract's `info.version`, so a breaking change of the contract is a
 * new major of the client, with the contracts' hash as a pre-release (`1.0.0-spec.3fa8b2c1`), so any change
 * of either spec (a field, an example, a description) is a new version: a frontend's lockfile says which
 * contract it was built on, and npm never takes a rebuilt tarball for the one it has.
 */
export function clientVersion(documents: readonly OpenApiDocument[] = readContracts().map((contract) => loadSpec(contract.spec))): string {
  const [main] = documents;
  const version = main && (main['info'] as { version?: unknown } | undefined)?.version;
  if (typeof version !== 'string') throw new Error("the public contract has no info.version, which the client package's version is made of");
  // A contract already at a pre-release (2.0.0-beta.1) keeps it, the hash after it; build metadata stays last.
  const [release = version, build] = version.split('+', 2);
  const spec = `${release.includes('-') ? '.' : '-'}spec.${specHash(documents)}`;
  return `${release}${spec}${build === undefined ? '' : `+${build}`}`;
}

/**
 * The package's `package.json`: its version is `clientVersion()`; its one dependency is openapi-fetch at the
 * version this project is tested with.
 */
export function clientManifest(): Record<string, unknown> {
  const root = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as RootManifest;
  const info = loadSpec()['info'] as { version: string; license?: { identifier?: string } };
  const openapiFetch = root.dependencies['openapi-fetch'];
  if (!openapiFetch) throw new Error('package.json has no openapi-fetch dependency, which the client needs');
  return {
    name: CLIENT_PACKAGE_NAME,
    version: clientVersion(),
    description: 'Typed clients of the Bearer List API (the public API and the account API), on openapi-fetch.',
    license: info.license?.identifier ?? 'UNLICENSED',
    type: 'module',
    sideEffects: false,
    exports: Object.fromEntries(Object.entries(ENTRIES).map(([entry, file]) => [entry, { types: `./${file}.d.ts`, default: `./${file}.js` }])),
    types: `./${ENTRIES['.']}.d.ts`,
    dependencies: { 'openapi-fetch': openapiFetch },
  };
}

/** Builds the package into `folder` (emptied first); resolves to the folder. */
export async function buildClientPackage(folder: string): Promise<string> {
  rmSync(folder, { recursive: true, force: true });
  const compiled = await runCommand(typescriptCommand(['-p', join(projectRoot, 'tsconfig.client.json'), '--outDir', folder]), { cwd: projectRoot });
  if (compiled.code !== 0) throw new Error(`the client does not compile on its own (tsconfig.client.json):\n${compiled.stdout}${compiled.stderr}`);
  // The declarations import the generated types by their place in this repository.
  mkdirSync(join(folder, 'generated'), { recursive: true });
  for (const { types } of readContracts()) copyFileSync(types, join(folder, 'generated', basename(types)));
  copyFileSync(join(projectRoot, 'src/client/README.md'), join(folder, 'README.md'));
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify(clientManifest(), null, 2)}\n`);
  return folder;
}

/** `npm pack`s a built package into `destination`; resolves to the tarball's path. */
export async function packClientPackage(folder: string, destination: string): Promise<string> {
  mkdirSync(destination, { recursive: true });
  const packed = await runCommand(['npm', 'pack', folder, '--pack-destination', destination, '--json', '--ignore-scripts'], { cwd: projectRoot });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [result] = JSON.parse(packed.stdout) as [{ filename: string }];
  return join(destination, result.filename);
}

/** Where `npm run build:client` builds the package (git-ignored, emptied at each build). */
export const CLIENT_PACKAGE_FOLDER = join(projectRoot, 'dist', 'client-package');
/**
 * Where it packs the tarballs, one per version (git-ignored): the folder docs/mock-and-client.md names. Nothing
 * removes a tarball from it (`npm run build` leaves it alone), so a frontend's lockfile keeps resolving until it
 * moves to a newer one.
 */
export const CLIENT_TARBALL_FOLDER = join(projectRoot, 'dist', 'client');

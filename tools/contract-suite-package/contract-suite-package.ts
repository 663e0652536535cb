/**
 * The contract suite (`src/contract-suite/`) as a tool of its own, `@bearer-list-api/contract-suite`: one bundled
 * ES module with a `bin`, its npm dependencies installed beside it (never bundled: they keep their own licences and
 * updates), its own version and changelog (`src/contract-suite/CHANGELOG.md`: the first `## <version>` heading) and
 * README, packed by `npm pack` into a tarball a team installs or runs with `npx <tarball> --spec … --base-url …`,
 * as the typed client is (`tools/client-package/`). Nothing of the server comes with it: what the suite imports from
 * `src/contract/` (the spec reader, Ajv's set-up, the response checker) is bundled in, and the npm packages it reaches
 * are read from esbuild's metafile, so a dependency the suite starts to use is in the manifest without anyone listing it.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../process/run-command.js';

export const SUITE_PACKAGE_NAME = '@bearer-list-api/contract-suite';
/** The command the package installs (`npx <tarball>` runs it: the package has this one bin). */
export const SUITE_BIN = 'contract-suite';

const SOURCE = join(projectRoot, 'src/contract-suite');
/** Where `npm run build:contract-suite` builds the package (git-ignored, emptied at each build). */
export const SUITE_PACKAGE_FOLDER = join(projectRoot, 'dist', 'contract-suite-package');
/** Where it packs the tarballs, one per version (git-ignored). */
export const SUITE_TARBALL_FOLDER = join(projectRoot, 'dist', 'contract-suite');

interface RootManifest {
  license?: string;
  engines?: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/** The suite's own version: the first `## <version>` of its changelog, so the version and what changed are written together. */
export function suiteVersion(changelog = readFileSync(join(SOURCE, 'CHANGELOG.md'), 'utf8')): string {
  const version = /^## (\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/m.exec(changelog)?.[1];
  if (!version) throw new Error('src/contract-suite/CHANGELOG.md has no "## <version>" heading, which the package version is read from');
  return version;
}

/** The npm package a bare import names (`ajv/dist/2020.js` is `ajv`, `@scope/name/x` is `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Builds the package into `folder` (emptied first); resolves to the folder. */
export async function buildSuitePackage(folder: string = SUITE_PACKAGE_FOLDER): Promise<string> {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'bin'), { recursive: true });
  const bin = join(folder, 'bin', `${SUITE_BIN}.mjs`);
  const result = await build({
    entryPoints: [join(SOURCE, 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: bin,
    banner: { js: '#!/usr/bin/env node' },
    metafile: true,
    logLevel: 'silent',
  });
  chmodSync(bin, 0o755);
  const root = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as RootManifest;
  const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
  const imported = new Set<string>();
  for (const output of Object.values(result.metafile.outputs))
    for (const entry of output.imports) if (entry.external && !builtins.has(entry.path)) imported.add(packageOf(entry.path));
  const dependencies: Record<string, string> = {};
  for (const name of [...imported].sort()) {
    const version = root.dependencies[name] ?? root.devDependencies[name];
    if (!version) throw new Error(`the contract suite imports ${name}, which package.json does not list`);
    dependencies[name] = version;
  }
  const manifest = {
    name: SUITE_PACKAGE_NAME,
    version: suiteVersion(),
    description: 'Contract tests derived from any OpenAPI 3.0/3.1 document: cases for every operation, generated requests, stateful sequences.',
    license: root.license ?? 'UNLICENSED',
    type: 'module',
    bin: { [SUITE_BIN]: `bin/${SUITE_BIN}.mjs` },
    engines: root.engines ?? { node: '>=20.19' },
    dependencies,
  };
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(SOURCE, 'README.md'), join(folder, 'README.md'));
  copyFileSync(join(SOURCE, 'CHANGELOG.md'), join(folder, 'CHANGELOG.md'));
  return folder;
}

/** `npm pack`s the built package into `destination`; resolves to the tarball's path. */
export async function packSuitePackage(folder: string = SUITE_PACKAGE_FOLDER, destination: string = SUITE_TARBALL_FOLDER): Promise<string> {
  mkdirSync(destination, { recursive: true });
  const packed = await runCommand(['npm', 'pack', folder, '--pack-destination', destination, '--json', '--ignore-scripts'], { cwd: projectRoot });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [packedFile] = JSON.parse(packed.stdout) as [{ filename: string }];
  return join(destination, packedFile.filename);
}

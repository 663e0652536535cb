/**
 * A package this project packs (the typed client, the contract suite), installed from its tarball into an empty
 * folder with npm and no network, as its users install it: its dependencies are packed from this project's
 * node_modules first, so the test needs no registry and installs exactly the versions this project tests with.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../../tools/process/run-command.js';

/** A package and, recursively, its dependencies, as this project has them installed. */
export function dependencyClosure(name: string, seen = new Set<string>()): Set<string> {
  if (seen.has(name)) return seen;
  seen.add(name);
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) dependencyClosure(dependency, seen);
  return seen;
}

/** Runs a command in `cwd`; resolves to its stdout, throws with its output when it fails. */
export async function run(argv: string[], cwd: string, timeoutMs = 90_000): Promise<string> {
  const result = await runCommand(argv, { cwd, timeoutMs });
  if (result.code !== 0) throw new Error(`${argv.join(' ')} failed (${result.code}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** Makes `consumer` an empty ES-module project and installs `tarball` into it offline, with the dependencies its manifest names. */
export async function installOffline(consumer: string, tarball: string, dependencies: readonly string[]): Promise<void> {
  mkdirSync(join(consumer, 'deps'), { recursive: true });
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const closure = new Set(dependencies.flatMap((name) => [...dependencyClosure(name)]));
  for (const name of closure)
    await run(['npm', 'pack', join(projectRoot, 'node_modules', name), '--pack-destination', 'deps', '--ignore-scripts', '--silent'], consumer);
  const packed = readdirSync(join(consumer, 'deps')).map((file) => `./deps/${file}`);
  await run(['npm', 'install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...packed], consumer, 180_000);
}

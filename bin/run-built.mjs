#!/usr/bin/env node
/**
 * Runs a program that `npm run build` compiled into `dist/`, with plain node: no TypeScript, tsx or
 * esbuild (they are devDependencies; a production install has none of them). `npm run start:prod`,
 * `npm run keys:prod -- …`, `npm run seed:prod` and the data commands' `:prod` scripts go through here, so a tree without `dist/` gets a
 * sentence naming the fix instead of MODULE_NOT_FOUND. Plain JavaScript on purpose: it must run before
 * anything is built. The program runs in this process (its pid, its signals), with its own arguments.
 * Exit codes: those of the program; 1 `dist/` is missing; 2 an unknown program.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PROGRAMS = {
  server: 'dist/src/server/main.js',
  keys: 'dist/src/cli/keys.js',
  seed: 'dist/src/cli/seed.js',
  // The data commands (docs/data.md): an operator backs up, restores and moves the database of a production install.
  backup: 'dist/src/cli/backup.js',
  restore: 'dist/src/cli/restore.js',
  'migrate-store': 'dist/src/cli/migrate-store.js',
};

const name = process.argv[2] ?? '';
const entry = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : undefined;
if (entry === undefined) {
  process.stderr.write(`usage: node bin/run-built.mjs <${Object.keys(PROGRAMS).join('|')}> [arguments]\n`);
  process.exit(2);
}
const file = fileURLToPath(new URL(`../${entry}`, import.meta.url));
if (!existsSync(file)) {
  process.stderr.write(`${entry} is missing: run \`npm run build\` first (it compiles the server and the CLIs into dist/ and prebuilds the pages)\n`);
  process.exit(1);
}
// The program reads its arguments from process.argv.slice(2), as if started as `node <entry> …`.
process.argv.splice(2, 1);
await import(pathToFileURL(file).href);

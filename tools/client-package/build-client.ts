/**
 * `npm run build:client`: the typed clients as a package of their own (`@bearer-list-api/client`), built into
 * `dist/client-package/` and packed into `dist/client/bearer-list-api-client-<version>.tgz` (the version is the
 * public contract's `info.version` with the contracts' hash as a pre-release), which a frontend project installs
 * with `npm install <path to the tarball>` (or which `npm publish dist/client-package` publishes).
 * `--out <folder>` packs it there instead, e.g. a frontend project's `vendor/`, where it is committed.
 * Exit codes: 0 built, 1 the client did not compile or pack, 2 bad usage.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli, UsageError } from '../../src/cli/exit.js';
import { displayPath } from '../check/display-path.js';
import { buildClientPackage, CLIENT_PACKAGE_FOLDER, CLIENT_TARBALL_FOLDER, packClientPackage } from './client-package.js';

await runCli('build:client', async () => {
  let out: string | undefined;
  try {
    out = parseArgs({ options: { out: { type: 'string' } }, strict: true }).values.out;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; usage: npm run build:client [-- --out <folder>]`);
  }
  // npm runs the script in the project root; a relative --out is meant from where npm was typed.
  const destination = out === undefined ? CLIENT_TARBALL_FOLDER : resolve(process.env['INIT_CWD'] ?? process.cwd(), out);
  const folder = await buildClientPackage(CLIENT_PACKAGE_FOLDER);
  const tarball = await packClientPackage(folder, destination);
  console.log(`built ${displayPath(folder)} and packed ${displayPath(tarball)}`);
  console.log(`install it in a frontend project: npm install ${tarball}`);
});

/**
 * `npm run build:client`: the typed clients as a package of their own (`@bearer-list-api/client`), built into
 * `dist/client-package/` and packed into `dist/bearer-list-api-client-<version>.tgz`, which a frontend project
 * installs with `npm install <path to the tarball>` (or which `npm publish dist/client-package` publishes).
 * Exit codes: 0 built, 1 the client did not compile or pack.
 */
import { runCli } from '../../src/cli/exit.js';
import { buildClientPackage, CLIENT_PACKAGE_FOLDER, CLIENT_TARBALL_FOLDER, packClientPackage } from './client-package.js';
import { displayPath } from '../check/display-path.js';

await runCli('build:client', async () => {
  const folder = await buildClientPackage(CLIENT_PACKAGE_FOLDER);
  const tarball = await packClientPackage(folder, CLIENT_TARBALL_FOLDER);
  console.log(`built ${displayPath(folder)} and packed ${displayPath(tarball)}`);
  console.log(`install it in a frontend project: npm install ${tarball}`);
});

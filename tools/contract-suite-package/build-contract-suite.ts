/**
 * `npm run build:contract-suite`: the contract suite as a package of its own (`@bearer-list-api/contract-suite`),
 * built into `dist/contract-suite-package/` and packed into `dist/contract-suite/bearer-list-api-contract-suite-<version>.tgz`,
 * which another team runs with `npx <tarball> --spec openapi.yaml --base-url http://127.0.0.1:8080 --credential …` or
 * installs with `npm install -D <tarball>`. Exit codes: 0 built, 1 the bundle or the pack failed.
 */
import { runCli } from '../../src/cli/exit.js';
import { displayPath } from '../check/display-path.js';
import { buildSuitePackage, packSuitePackage } from './contract-suite-package.js';

await runCli('build:contract-suite', async () => {
  const folder = await buildSuitePackage();
  const tarball = await packSuitePackage(folder);
  console.log(`built ${displayPath(folder)} and packed ${displayPath(tarball)}`);
  console.log(`run it on any OpenAPI document: npx ${tarball} --spec <openapi.yaml> --base-url <url> --credential <scheme>=<value>`);
});

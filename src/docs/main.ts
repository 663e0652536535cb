/**
 * `npm run docs`: writes the reference page of every contract `redocly.yaml` lists
 * (`docs/index.html` for the public API, `docs/<name>.html` for the others), each
 * one self-contained. Exit codes: 0 all written, 1 a page could not be built.
 */
import { relative } from 'node:path';
import { CommandFailed, runCli } from '../cli/exit.js';
import { projectRoot, readContracts } from '../contract/project.js';
import { buildDocs, docsFile } from './build.js';

await runCli('docs', async () => {
  const failures: string[] = [];
  for (const contract of readContracts()) {
    const output = docsFile(contract.name);
    try {
      await buildDocs(contract, output);
      console.log(`wrote ${relative(projectRoot, output)} from ${relative(projectRoot, contract.spec)}: self-contained, open it from disk`);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (failures.length > 0) throw new CommandFailed(failures.join('\n'));
});

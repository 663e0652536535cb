import { Command } from 'commander';
import { resolve } from 'node:path';
import { ExitCode, runCli, UsageError } from '../../src/cli/exit.js';
import { readContracts } from '../../src/contract/project.js';
import { checkBreakingChanges, listChanges } from './breaking-changes.js';

const program = new Command('diff')
  .description(
    'Compare each contract with its last release (x-released in redocly.yaml) using redocly diff, and fail on a change that can break clients ' +
      "unless info.version's major is raised and CHANGELOG.md says what breaks.",
  )
  .option('--api <name>', 'only this contract of redocly.yaml (main, account)')
  .option('--spec <file>', 'compare this file instead of the working spec (with --api, or for the first contract)')
  .option('--all', 'list every change, minor and patch ones too')
  .exitOverride();

await runCli('diff', async () => {
  const options = program.parse().opts<{ api?: string; spec?: string; all?: boolean }>();
  const contracts = readContracts();
  const chosen = options.api ? contracts.filter((contract) => contract.name === options.api) : options.spec ? contracts.slice(0, 1) : contracts;
  if (chosen.length === 0) throw new UsageError(`redocly.yaml has no api ${options.api}; it has ${contracts.map((contract) => contract.name).join(', ')}`);
  // One redocly process per contract, side by side: each spends most of its time starting up.
  const results = await Promise.all(chosen.map((contract) => checkBreakingChanges(contract, options.spec ? resolve(options.spec) : contract.spec)));
  let code: ExitCode = ExitCode.ok;
  for (const result of results) {
    const extra = options.all && result.report.changes.length > 0 ? `\n${listChanges(result.report).join('\n')}` : '';
    if (result.ok) {
      console.log(`diff: ok, ${result.message}${extra}`);
    } else {
      console.error(`diff: FAILED, ${result.message}${extra}`);
      code = ExitCode.failed;
    }
  }
  return code;
});

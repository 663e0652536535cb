import { Command } from 'commander';
import { resolve } from 'node:path';
import { ExitCode, runCli } from '../cli/exit.js';
import { readContractPaths } from '../contract/project.js';
import { checkDrift } from './drift.js';

const defaults = readContractPaths();
const program = new Command('check-drift')
  .description('Fail when the committed generated types differ from what the spec produces.')
  .option('--spec <file>', 'OpenAPI document to compile', defaults.spec)
  .option('--types <file>', 'committed types to compare with', defaults.types)
  .exitOverride();

await runCli('drift', async () => {
  const options = program.parse().opts<{ spec: string; types: string }>();
  const result = await checkDrift({ spec: resolve(options.spec), types: resolve(options.types) });
  if (result.ok) {
    console.log(`drift: ok, ${result.message}`);
    return ExitCode.ok;
  }
  console.error(`drift: FAILED, ${result.message}`);
  return ExitCode.failed;
});

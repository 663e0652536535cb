import { Command } from 'commander';
import { resolve } from 'node:path';
import { ExitCode, runCli } from '../../src/cli/exit.js';
import { readContracts } from '../../src/contract/project.js';
import { checkDrift } from './drift.js';

const program = new Command('check-drift')
  .description('Fail when the committed generated types differ from what the spec produces (every api of redocly.yaml, or the one --spec and --types name).')
  .option('--spec <file>', 'OpenAPI document to compile')
  .option('--types <file>', 'committed types to compare with')
  .exitOverride();

await runCli('drift', async () => {
  const options = program.parse().opts<{ spec?: string; types?: string }>();
  const contracts = readContracts();
  const pairs =
    options.spec || options.types
      ? [{ spec: resolve(options.spec ?? contracts[0]!.spec), types: resolve(options.types ?? contracts[0]!.types) }]
      : contracts.map(({ spec, types }) => ({ spec, types }));
  let code: ExitCode = ExitCode.ok;
  for (const pair of pairs) {
    const result = await checkDrift(pair);
    if (result.ok) {
      console.log(`drift: ok, ${result.message}`);
    } else {
      console.error(`drift: FAILED, ${result.message}`);
      code = ExitCode.failed;
    }
  }
  return code;
});

import { Command } from 'commander';
import { resolve } from 'node:path';
import { readContracts } from '../contract/project.js';
import { checkDrift } from './drift.js';

const options = new Command('check-drift')
  .description('Fail when the committed generated types differ from what the spec produces (every api of redocly.yaml, or the one --spec and --types name).')
  .option('--spec <file>', 'OpenAPI document to compile')
  .option('--types <file>', 'committed types to compare with')
  .parse()
  .opts<{ spec?: string; types?: string }>();

const contracts = readContracts();
const pairs =
  options.spec || options.types
    ? [{ spec: resolve(options.spec ?? contracts[0]!.spec), types: resolve(options.types ?? contracts[0]!.types) }]
    : contracts.map(({ spec, types }) => ({ spec, types }));
for (const pair of pairs) {
  const result = await checkDrift(pair);
  if (result.ok) {
    console.log(`drift: ok, ${result.message}`);
  } else {
    console.error(`drift: FAILED, ${result.message}`);
    process.exitCode = 1;
  }
}

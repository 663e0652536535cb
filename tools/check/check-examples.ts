import { Command } from 'commander';
import { resolve } from 'node:path';
import { readContracts } from '../../src/contract/project.js';
import { checkValueExamples } from './examples-check.js';

const options = new Command('check-examples')
  .description(
    'Fail when a header or parameter example does not validate against its schema (Redocly checks only body examples). Every api of redocly.yaml, or the one --spec names.',
  )
  .option('--spec <file>', 'OpenAPI document to check')
  .parse()
  .opts<{ spec?: string }>();

const specs = options.spec ? [resolve(options.spec)] : readContracts().map((contract) => contract.spec);
for (const spec of specs) {
  const result = checkValueExamples(spec);
  if (result.ok) {
    console.log(`examples: ok, ${result.message}`);
  } else {
    console.error(`examples: FAILED, ${result.message}`);
    process.exitCode = 1;
  }
}

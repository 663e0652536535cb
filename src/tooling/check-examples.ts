import { Command } from 'commander';
import { resolve } from 'node:path';
import { readContractPaths } from '../contract/project.js';
import { checkValueExamples } from './examples-check.js';

const options = new Command('check-examples')
  .description('Fail when a header or parameter example does not validate against its schema (Redocly checks only body examples).')
  .option('--spec <file>', 'OpenAPI document to check', readContractPaths().spec)
  .parse()
  .opts<{ spec: string }>();

const result = checkValueExamples(resolve(options.spec));
if (result.ok) {
  console.log(`examples: ok, ${result.message}`);
} else {
  console.error(`examples: FAILED, ${result.message}`);
  process.exitCode = 1;
}

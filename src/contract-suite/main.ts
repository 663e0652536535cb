/**
 * `npm run contract -- --base-url <url> --token <key>`: runs the contract suite
 * against any running API (the implementation, a deployment, the Prism mock) and
 * prints a report. One request at a time; positive cases of operations that may
 * write are skipped unless `--allow-writes`.
 * Exit codes: 0 no violation, 1 a violation, 2 bad usage or nothing reachable.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { refuseOptionsAsValues } from '../cli/option-values.js';
import { exitCodeFor } from '../cli/exit.js';
import { readContractPaths, readContracts } from '../contract/project.js';
import { loadSpec } from '../contract/spec.js';
import type { Target } from './known-differences.js';
import { formatProgress, formatReport } from './report.js';
import { runContractSuite } from './run.js';

interface CliOptions {
  api: string;
  baseUrl: string;
  token: string;
  target: Target;
  json?: boolean;
  maxPages: number;
  timeout: number;
  allowWrites?: boolean;
}

function absoluteUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw new InvalidArgumentError('must be an absolute http(s) URL, e.g. http://127.0.0.1:3000');
  return value;
}

function apiKey(value: string): string {
  if (value.trim() === '' || /\s/.test(value)) throw new InvalidArgumentError('must be a non-empty API key without spaces');
  return value;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('must be a positive integer');
  return parsed;
}

const program = new Command('contract')
  .description(
    'Check a running API against openapi/openapi.yaml with checks derived from the spec, for every operation. ' +
      'Positive cases of operations that may write (an unsafe method not marked x-read-only) are skipped unless --allow-writes.',
  )
  .requiredOption('--base-url <url>', 'root of the API, e.g. http://127.0.0.1:3000 (the account API: http://127.0.0.1:3001/api)', absoluteUrl)
  .addOption(
    new Option('--token <key>', 'a valid credential for that API: an API key, or for the account API the value of a session cookie')
      .env('API_KEY')
      .argParser(apiKey)
      .makeOptionMandatory(),
  )
  .addOption(
    new Option('--api <name>', 'which contract of redocly.yaml to check: main (the public API) or account')
      .choices(readContracts().map((contract) => contract.name))
      .default('main'),
  )
  .addOption(
    new Option('--target <target>', 'what the URL serves; "prism" allows the differences listed in src/contract-suite/known-differences.ts')
      .choices(['implementation', 'prism'])
      .default('implementation'),
  )
  .option('--json', 'print the report as JSON on stdout')
  .option('--max-pages <n>', 'most pages a pagination walk reads', positiveInteger, 10)
  .option('--timeout <ms>', 'time limit per request', positiveInteger, 10_000)
  .option('--allow-writes', 'also send positive cases that may write; only against a disposable deployment')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

refuseOptionsAsValues(program);

let options: CliOptions;
try {
  options = program.parse().opts<CliOptions>();
} catch (error) {
  process.exit(exitCodeFor('contract', error));
}

const interactive = process.stderr.isTTY === true;
let lastOperation = '';
const report = await runContractSuite({
  spec: loadSpec(readContractPaths(undefined, options.api).spec),
  baseUrl: options.baseUrl,
  token: options.token,
  target: options.target,
  maxPages: options.maxPages,
  timeoutMs: options.timeout,
  allowWrites: options.allowWrites ?? false,
  onProgress: ({ index, total, entry }) => {
    const line = formatProgress(index, total, entry.operation.operationId, entry.title);
    if (interactive) {
      process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns || 80) - 1)}`);
    } else if (entry.operation.operationId !== lastOperation) {
      // In a log, one line per operation rather than a line per request.
      process.stderr.write(`${line}\n`);
    }
    lastOperation = entry.operation.operationId;
  },
});
if (interactive) process.stderr.write('\r\x1b[2K');

process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
process.exitCode = report.unreachable !== undefined ? 2 : report.summary.failed > 0 ? 1 : 0;

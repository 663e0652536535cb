/**
 * `npm run contract -- --base-url <url> --token <key>`: runs the contract suite
 * against any running API (the implementation, a deployment, the Prism mock) and
 * prints a report. One request at a time; positive cases of operations that may
 * write are skipped unless `--allow-writes`.
 * Exit codes: 0 no violation, 1 a violation, 2 bad usage or nothing reachable.
 */
import { exitCodeFor } from '../cli/exit.js';
import { readContractPaths } from '../contract/project.js';
import { loadSpec } from '../contract/spec.js';
import { type CliOptions, parseContractArgs } from './cli-options.js';
import { formatProgress, formatReport } from './report.js';
import { runContractSuite } from './run.js';

let options: CliOptions;
try {
  options = parseContractArgs(process.argv.slice(2));
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

import { ExitCode, exitCodeFor } from '../cli/exit.js';
import { type CliIo, processIo } from '../cli/io.js';
import { readContractPaths } from '../contract/project.js';
import { loadSpec } from '../contract/spec.js';
import { type CliOptions, parseContractArgs } from './cli-options.js';
import { formatProgress, formatReport } from './report.js';
import { runContractSuite } from './run.js';

/**
 * `npm run contract -- --base-url <url> --token <key>`: runs the contract suite
 * against any running API (the implementation, a deployment, the Prism mock) and
 * prints a report. One request at a time; positive cases of operations that may
 * write are skipped unless `--allow-writes`. `interactive` (a terminal on stderr)
 * redraws one progress line; otherwise a line per operation.
 * Exit codes: 0 no violation, 1 a violation, 2 bad usage or nothing reachable.
 */
export async function runContract(argv: readonly string[], io: CliIo = processIo, interactive = false): Promise<ExitCode> {
  let options: CliOptions;
  try {
    options = parseContractArgs(argv, io.err);
  } catch (error) {
    return exitCodeFor('contract', error, io.err);
  }
  let lastOperation = '';
  const columns = process.stderr.columns || 80;
  const report = await runContractSuite({
    spec: loadSpec(readContractPaths(undefined, options.api).spec),
    baseUrl: options.baseUrl,
    token: options.token,
    target: options.target,
    maxPages: options.maxPages,
    timeoutMs: options.timeout,
    allowWrites: options.allowWrites ?? false,
    examples: options.examples,
    ...(options.seed !== undefined && { seed: options.seed }),
    stateful: options.stateful,
    refused: options.refusedToken,
    ...(options.otherToken !== undefined && { otherToken: options.otherToken }),
    onProgress: ({ index, total, entry }) => {
      const line = formatProgress(index, total, entry.operation.operationId, entry.title);
      if (interactive) io.err(`\r\x1b[2K${line.slice(0, columns - 1)}`);
      // In a log, one line per operation rather than a line per request.
      else if (entry.operation.operationId !== lastOperation) io.err(`${line}\n`);
      lastOperation = entry.operation.operationId;
    },
  });
  if (interactive) io.err('\r\x1b[2K');

  io.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.unreachable !== undefined ? ExitCode.usage : report.summary.failed > 0 ? ExitCode.failed : ExitCode.ok;
}

import { writeFileSync } from 'node:fs';
import { ExitCode, exitCodeFor, UsageError } from '../cli/exit.js';
import { type CliIo, processIo } from '../cli/io.js';
import { loadContractSpec, type OpenApiDocument } from '../contract/spec.js';
import { type CliOptions, parseContractArgs } from './cli-options.js';
import { schemesOf } from './credentials.js';
import { formatJunit } from './junit.js';
import { formatProgress, formatReport } from './report.js';
import { rulesOf } from './rules.js';
import { runContractSuite, type SuiteOptions } from './run.js';
import { UnresolvableSpec } from './spec/unresolvable.js';

/**
 * The suite's exit codes: the project's (`cli/exit.ts`: 0 no violation, 1 a violation, 2 bad usage or
 * nothing answering at the URL, 3 the tool failed), and two of its own, so that CI can tell a run that
 * checked nothing from one that passed: 4 nothing was checked (no operation, every case skipped), 5 the
 * document cannot be resolved (a `$ref` to nothing). Each comes with one line on stderr saying why.
 */
export const ContractExit = { ...ExitCode, nothingChecked: 4, unresolvableSpec: 5 } as const;
export type ContractExit = (typeof ContractExit)[keyof typeof ContractExit];

/** Errors of reading a document whose `$ref`s lead nowhere, wherever they surface (bundling, or reading an operation). */
const UNRESOLVED_REF = /^(unresolved \$ref|\$ref cycle|only local \$refs)/;

/**
 * `npm run contract -- --base-url <url> --token <key>` (this project's contracts), or
 * `--spec <file> --base-url <url> --credential <scheme>=<value>` (any OpenAPI 3.0/3.1 document):
 * runs the contract suite against any running API (the implementation, a deployment, a mock)
 * and prints a report. One request at a time; positive cases of operations that may write are
 * skipped unless `--allow-writes`. `interactive` (a terminal on stderr) redraws one progress
 * line; otherwise a line per operation. The phases (`phases/`) run after the derived cases.
 * Exit codes: `ContractExit` (with a message, never a stack trace).
 */
export async function runContract(argv: readonly string[], io: CliIo = processIo, interactive = false): Promise<ContractExit> {
  let options: CliOptions;
  try {
    options = parseContractArgs(argv, io.err);
  } catch (error) {
    return exitCodeFor('contract', error, io.err);
  }
  try {
    return await run(options, io, interactive);
  } catch (error) {
    if (error instanceof UsageError) return exitCodeFor('contract', error, io.err);
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UnresolvableSpec || UNRESOLVED_REF.test(message)) {
      io.err(`contract: the spec cannot be resolved (exit 5), nothing was checked: ${message}\n`);
      return ContractExit.unresolvableSpec;
    }
    // A bug of the suite, or a document it cannot handle: said plainly, apart from a violation of the API.
    io.err(`\ncontract: the suite itself failed (exit 3), not the API: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.toolFailed;
  }
}

async function run(options: CliOptions, io: CliIo, interactive: boolean): Promise<ContractExit> {
  let spec: OpenApiDocument;
  let foreign: SuiteOptions['foreign'];
  if (options.spec !== undefined) {
    // Loaded only for --spec: Redocly's bundler is a devDependency, like the Prism and Redocly CLI the tooling drives.
    const { readSpecSource } = await import('./spec/spec-source.js');
    const source = await readSpecSource(options.spec);
    spec = source.spec;
    foreign = { unknownFormats: source.unknownFormats, notes: source.notes, openapi: source.version };
  } else spec = loadContractSpec(options.api);
  const schemes = schemesOf(spec);
  for (const { scheme } of [...options.credential, ...options.refusedCredential])
    if (!schemes.has(scheme))
      throw new UsageError(`the spec has no security scheme ${JSON.stringify(scheme)} (it has: ${[...schemes.keys()].join(', ') || 'none'})`);
  const rules = rulesOf(spec, options.config);

  let lastOperation = '';
  const columns = process.stderr.columns || 80;
  const report = await runContractSuite({
    spec,
    ...(foreign && { foreign }),
    rules,
    baseUrl: options.baseUrl,
    ...(options.token !== undefined && { token: options.token }),
    credentials: Object.fromEntries(options.credential.map(({ scheme, value }) => [scheme, value])),
    refusedCredentials: options.refusedCredential,
    target: options.target,
    maxPages: options.maxPages,
    timeoutMs: options.timeout,
    ...(options.maxResponseTime !== undefined && { maxResponseTimeMs: options.maxResponseTime }),
    allowWrites: options.allowWrites ?? false,
    examples: options.examples,
    ...(options.seed !== undefined && { seed: options.seed }),
    stateful: options.stateful,
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
  if (options.junit !== undefined) {
    try {
      writeFileSync(options.junit, formatJunit(report));
    } catch (error) {
      throw new UsageError(`cannot write the JUnit report to ${options.junit}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (report.unreachable !== undefined) {
    io.err(`contract: nothing answers at ${report.baseUrl} (exit 2): ${report.unreachable}\n`);
    return ContractExit.usage;
  }
  // Set only when no check ran at all: the failures then are only the operations left unchecked, and this says why in one line.
  if (report.nothingChecked !== undefined) {
    io.err(`contract: nothing was checked (exit 4): ${report.nothingChecked}\n`);
    return ContractExit.nothingChecked;
  }
  return report.summary.failed > 0 ? ContractExit.failed : ContractExit.ok;
}

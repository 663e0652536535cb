/**
 * `npm run check`: every step named on the command line (each an npm script of this package:
 * `lint`, `typecheck`, ...), run at once rather than one after the other, since most of them spend
 * their time starting a runtime and a one-core parser while the machine has more. Prints one line
 * per step with its time, then the output of every step that failed. Exit codes: 0 all passed,
 * 1 a step failed, 2 bad usage.
 */
import { Command } from 'commander';
import { ExitCode, runCli, UsageError } from '../../src/cli/exit.js';
import { formatChecks, readScripts, runChecks, stepCache } from './run-checks.js';

const program = new Command('check')
  .description('Run the named npm scripts of this package at once; report each, and fail if any fails.')
  .argument('<scripts...>', 'npm scripts to run, e.g. lint typecheck')
  .exitOverride();

await runCli('check', async () => {
  const names = program.parse().args;
  const scripts = readScripts();
  const unknown = names.filter((name) => scripts[name] === undefined);
  if (unknown.length > 0) throw new UsageError(`no npm script named ${unknown.map((name) => JSON.stringify(name)).join(', ')} in package.json`);
  const started = performance.now();
  const results = await runChecks(names, scripts, undefined, stepCache);
  const { stdout, stderr } = formatChecks(results, (performance.now() - started) / 1000);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  return results.every((result) => result.ok) ? ExitCode.ok : ExitCode.failed;
});

/**
 * `npm run check`: every step named on the command line (each an npm script of this package:
 * `lint`, `typecheck`, ...), run at once rather than one after the other, since most of them spend
 * their time starting a runtime and a one-core parser while the machine has more. Each step runs
 * its script's own command line, as `npm run` would (a shell, `node_modules/.bin` first on PATH),
 * without npm's own start-up per step. Prints one line per step with its time, then the output of
 * every step that failed, in the order given. Exit codes: 0 all passed, 1 a step failed, 2 bad usage.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ExitCode, runCli, UsageError } from '../cli/exit.js';
import { projectRoot } from '../contract/project.js';
import { runCommand } from '../process/run-command.js';

interface StepResult {
  name: string;
  ok: boolean;
  seconds: number;
  output: string;
}

const program = new Command('check')
  .description('Run the named npm scripts of this package at once; report each, and fail if any fails.')
  .argument('<scripts...>', 'npm scripts to run, e.g. lint typecheck')
  .exitOverride();

await runCli('check', async () => {
  const names = program.parse().args;
  const scripts = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const unknown = names.filter((name) => scripts[name] === undefined);
  if (unknown.length > 0) throw new UsageError(`no npm script named ${unknown.map((name) => JSON.stringify(name)).join(', ')} in package.json`);

  const started = performance.now();
  const env = { PATH: [join(projectRoot, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(delimiter), FORCE_COLOR: '0' };
  const results = await Promise.all(names.map((name) => runStep(name, scripts[name]!, env)));
  for (const result of results) process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'}  ${result.name.padEnd(16)} ${result.seconds.toFixed(1)} s\n`);
  const failed = results.filter((result) => !result.ok);
  for (const result of failed) process.stderr.write(`\n── ${result.name} (npm run ${result.name}) failed:\n${result.output.trimEnd()}\n`);
  const total = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    failed.length ? `\ncheck: ${failed.length} of ${results.length} failed in ${total} s\n` : `check: all ${results.length} passed in ${total} s\n`,
  );
  return failed.length ? ExitCode.failed : ExitCode.ok;
});

async function runStep(name: string, script: string, env: Record<string, string>): Promise<StepResult> {
  const started = performance.now();
  const result = await runCommand(['sh', '-c', script], { cwd: projectRoot, env, timeoutMs: 300_000 });
  return { name, ok: result.code === 0, seconds: (performance.now() - started) / 1000, output: result.stdout + result.stderr };
}

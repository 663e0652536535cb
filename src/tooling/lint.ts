import { relative } from 'node:path';
import { ExitCode, runCli } from '../cli/exit.js';
import { projectRoot, readContracts } from '../contract/project.js';
import { binCommand } from '../process/commands.js';
import { describeExit } from '../process/launch.js';
import { runCommand } from '../process/run-command.js';
import { passCache } from './pass-cache.js';

/**
 * `npm run lint`: the contracts of `redocly.yaml` through both linters, side by side
 * (each spends a second starting up): Redocly with `redocly.yaml` (recommended-strict
 * and this project's rules) and Spectral with `.spectral.yaml` (the OWASP API Security
 * ruleset). Each one's output is printed whole, in turn. Warnings fail Redocly's run,
 * and a Spectral finding of any severity fails Spectral's. A linter whose inputs (the
 * contracts' folder, its config, the lock file's tool versions) are those of its last
 * pass is not run again (`pass-cache.ts`; `CHECK_CACHE=off` runs both).
 */
await runCli('lint', async () => {
  const specs = readContracts().map((contract) => relative(projectRoot, contract.spec));
  const env = { REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', REDOCLY_TELEMETRY: 'off' };
  const linters = [
    { name: 'redocly lint', argv: binCommand('redocly', ['lint', '--config', 'redocly.yaml']), config: 'redocly.yaml' },
    {
      name: 'spectral lint (OWASP)',
      argv: binCommand('spectral', ['lint', ...specs, '--ruleset', '.spectral.yaml', '--fail-severity', 'hint']),
      config: '.spectral.yaml',
    },
  ].map((linter) => ({ ...linter, cache: passCache(linter.name.split(' ')[0]!, ['openapi', linter.config, 'package-lock.json', 'src/tooling/lint.ts']) }));
  const results = await Promise.all(linters.map((linter) => (linter.cache.unchanged ? undefined : runCommand(linter.argv, { env, timeoutMs: 120_000 }))));
  let code: ExitCode = ExitCode.ok;
  linters.forEach((linter, index) => {
    const result = results[index];
    if (!result) {
      console.log(`lint: ${linter.name}: ok, its inputs are unchanged since its last pass (CHECK_CACHE=off runs it anyway)`);
      return;
    }
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    if (result.code !== 0) {
      console.error(`lint: ${linter.name} failed (${describeExit(result)})`);
      code = ExitCode.failed;
    } else linter.cache.recordPass();
  });
  return code;
});

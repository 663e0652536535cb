import { relative } from 'node:path';
import { ExitCode, runCli } from '../../src/cli/exit.js';
import { type Contract, projectRoot, readContracts } from '../../src/contract/project.js';
import { describeExit } from '../process/launch.js';
import { passCache } from './pass-cache.js';
import { lintWithRedocly } from './redocly-lint.js';

/**
 * `npm run lint`: the contracts of `redocly.yaml` through both linters, side by side:
 * Redocly with `redocly.yaml` (recommended-strict and this project's rules), as its CLI
 * in a process of its own (`redocly-lint.ts`), and Spectral with `.spectral.yaml` (the OWASP API Security
 * ruleset) in this one (`spectral.ts`). Each one's findings are printed whole, in turn, one line each
 * (`file:line:column severity rule message`), errors first. Warnings fail Redocly's run,
 * and a Spectral finding of any severity fails Spectral's. Each linter keeps a pass
 * cache per contract (`pass-cache.ts`): it lints only the contracts whose spec, its own
 * config or the tools' versions changed since their last pass, so an edit to one spec
 * lints that spec alone; with none changed it does not run (`CHECK_CACHE=off` lints all).
 */
await runCli('lint', async () => {
  const contracts = readContracts();
  const linters = [
    {
      name: 'redocly lint',
      config: 'redocly.yaml',
      // Redocly lints the named APIs of its config, each with that config's rules; one line per problem, errors first (redocly-lint.ts).
      run: (chosen: Contract[]) => lintWithRedocly(chosen.map((contract) => contract.name)),
    },
    {
      name: 'spectral lint (OWASP)',
      config: '.spectral.yaml',
      // In this process (spectral.ts); a finding of any severity fails, as `--fail-severity hint` does.
      async run(chosen: Contract[]) {
        const specs = chosen.map((contract) => relative(projectRoot, contract.spec));
        // Loaded only when a spec is linted: Spectral's modules take a third of a second, which a skipped run need not pay.
        const { formatFindings, lintWithSpectral } = await import('./spectral.js');
        const findings = await lintWithSpectral(specs);
        // A finding an exception of .spectral.yaml meant to excuse, at a place the spec no longer has (a renamed
        // property), says so: the fix is the exception, not the spec.
        const { readStaleExceptions, staleExceptionNote } = await import('./spectral-exceptions.js');
        const stale = findings.length === 0 ? [] : readStaleExceptions(chosen);
        const noted = findings.map((finding) => {
          const note = staleExceptionNote(finding, stale);
          return note ? { ...finding, message: `${finding.message} (${note})` } : finding;
        });
        return { code: findings.length === 0 ? 0 : 1, signal: null, stdout: formatFindings(noted, specs), stderr: '' };
      },
    },
  ].map((linter) => {
    const checks = contracts.map((contract) => ({
      contract,
      cache: passCache(`${linter.name.split(' ')[0]}-${contract.name}`, [
        relative(projectRoot, contract.spec),
        linter.config,
        'package-lock.json',
        'tools/check/lint.ts',
        'tools/check/spectral.ts',
        'tools/check/redocly-lint.ts',
        'tools/check/spectral-exceptions.ts',
      ]),
    }));
    return { ...linter, stale: checks.filter((check) => !check.cache.unchanged), fresh: checks.filter((check) => check.cache.unchanged) };
  });
  const results = await Promise.all(linters.map((linter) => (linter.stale.length === 0 ? undefined : linter.run(linter.stale.map((check) => check.contract)))));
  let code: ExitCode = ExitCode.ok;
  linters.forEach((linter, index) => {
    const result = results[index];
    if (linter.fresh.length > 0) {
      const names = linter.fresh.map((check) => check.contract.name).join(', ');
      console.log(`lint: ${linter.name}: ok for ${names}, unchanged since the last pass (CHECK_CACHE=off lints them anyway)`);
    }
    if (!result) return;
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    if (result.code !== 0) {
      console.error(`lint: ${linter.name} failed (${describeExit(result)})`);
      code = ExitCode.failed;
    } else for (const check of linter.stale) check.cache.recordPass();
  });
  return code;
});

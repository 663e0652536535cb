/**
 * `npm run check:contracts`: the examples check, the drift check, the `x-limits` check and the
 * breaking-change gate of every contract in `redocly.yaml`, and the check of the specs' copies in
 * prose and examples (`spec-copies.ts`), the names the specs dropped that prose still uses (`stale-names.ts`) and
 * the TypeScript samples of the README, `docs/` and JSDoc, typechecked (`code-samples.ts`), in one process, so `npm run check` loads the spec tooling
 * once rather than once per check (`check:examples`, `check:drift` and `diff` stay, for one check
 * at a time). The gate's `redocly diff` runs start first, since they take longest. When every input
 * (the contracts, their releases and generated types, the README, `docs/` and changelog they are compared
 * with, the lock file's tool versions, and `src/` and `tools/`, whose code does the checking) is as at the last
 * pass, nothing runs again (`pass-cache.ts`; `CHECK_CACHE=off` runs it all). Each check keeps its own cache
 * over what it reads (`contractChecks`).
 * Exit codes: 0 all pass, 1 one failed.
 */

import { dirname, relative } from 'node:path';
import { ExitCode, runCli } from '../../src/cli/exit.js';
import { type Contract, projectRoot, readContracts } from '../../src/contract/project.js';
import { type PassCache, passCache } from './pass-cache.js';

/** The code these checks run: a change elsewhere in `src/` or `tools/` is not a reason to run the slow ones again. */
const TOOLING = ['tools/check', 'tools/generate', 'tools/process', 'src/contract', 'package-lock.json'];

type Outcome = { check: string; ok: boolean; message: string };

/** One check over its own inputs: run only when they changed since its last pass. */
interface ContractCheck {
  label: string;
  cache: PassCache;
  run(): Promise<Outcome[]>;
}

const relativeTo = (file: string) => relative(projectRoot, file);

/**
 * Every check, each with its pass cache: per contract, the breaking-change gate (its spec, its release
 * and accepted changes, the changelog) and the examples, drift and `x-limits` checks (its spec and its types); and
 * the copies check over both specs and everything that restates them. An edit to one spec runs that
 * contract's checks and the copies check; an edit to the server's code, the copies check alone.
 */
function contractChecks(contracts: readonly Contract[]): ContractCheck[] {
  const gates = contracts.map(
    (contract): ContractCheck => ({
      label: `diff ${contract.name}`,
      cache: passCache(`contracts-diff-${contract.name}`, [
        relativeTo(contract.spec),
        relativeTo(dirname(contract.released)),
        'redocly.yaml',
        'CHANGELOG.md',
        ...TOOLING,
      ]),
      async run() {
        const { checkBreakingChanges } = await import('./breaking-changes.js');
        return [{ check: 'diff', ...(await checkBreakingChanges(contract)) }];
      },
    }),
  );
  const generated = contracts.map(
    (contract): ContractCheck => ({
      label: `examples, drift and limits ${contract.name}`,
      cache: passCache(`contracts-generated-${contract.name}`, [relativeTo(contract.spec), relativeTo(contract.types), 'redocly.yaml', ...TOOLING]),
      async run() {
        const [{ checkValueExamples }, { checkDrift }, { checkLimits }] = await Promise.all([
          import('./examples-check.js'),
          import('./drift.js'),
          import('../../src/contract/limits.js'),
        ]);
        return [
          { check: 'examples', ...checkValueExamples(contract.spec) },
          { check: 'drift', ...(await checkDrift({ spec: contract.spec, types: contract.types })) },
          // The schema of x-limits is in src/contract, one of the TOOLING inputs of this cache.
          { check: 'limits', ...checkLimits(contract) },
        ];
      },
    }),
  );
  const copies: ContractCheck = {
    label: 'copies',
    // `docs/`'s pages restate the specs too; the references `npm run docs` writes there are not read.
    cache: passCache(
      'contracts-copies',
      ['openapi', 'generated', 'redocly.yaml', '.spectral.yaml', 'README.md', 'docs', 'CHANGELOG.md', 'package-lock.json', 'src', 'tools/check'],
      process.env,
      projectRoot,
      ['docs/index.html', 'docs/account.html'],
    ),
    async run() {
      const [{ checkSpecCopies, loadSpecs }, { checkStaleNames }] = await Promise.all([import('./spec-copies.js'), import('./stale-names.js')]);
      return [
        { check: 'copies', ...checkSpecCopies(loadSpecs()) },
        { check: 'names', ...checkStaleNames(contracts) },
      ];
    },
  };
  const samples: ContractCheck = {
    label: 'samples',
    cache: passCache(
      'contracts-samples',
      ['README.md', 'docs', 'src', 'generated', 'tsconfig.json', 'package-lock.json', 'tools/check/code-samples.ts'],
      process.env,
      projectRoot,
      ['docs/index.html', 'docs/account.html', 'docs/adr'],
    ),
    async run() {
      const { checkCodeSamples } = await import('./code-samples.js');
      return [{ check: 'samples', ...(await checkCodeSamples()) }];
    },
  };
  // The gates first: each starts a redocly process, which then runs beside the checks made in this process.
  return [...gates, samples, ...generated, copies];
}

await runCli('check:contracts', async () => {
  const checks = contractChecks(readContracts());
  const fresh = checks.filter((check) => check.cache.unchanged);
  if (fresh.length === checks.length) {
    console.log('check:contracts: ok, its inputs are unchanged since its last pass (CHECK_CACHE=off runs it anyway)');
    return ExitCode.ok;
  }
  if (fresh.length > 0) console.log(`check:contracts: ${fresh.map((check) => check.label).join(', ')}: ok, unchanged since the last pass`);
  const stale = checks.filter((check) => !check.cache.unchanged);
  // Modules load only for the checks that run: openapi-typescript, TypeScript 5 and Redocly's core cost a second.
  const settled = await Promise.allSettled(stale.map((check) => check.run()));
  let code: ExitCode = ExitCode.ok;
  stale.forEach((check, index) => {
    const outcome = settled[index];
    const outcomes: Outcome[] =
      outcome?.status === 'fulfilled'
        ? outcome.value
        : [{ check: check.label, ok: false, message: String((outcome?.reason as Error | undefined)?.message ?? outcome?.reason) }];
    for (const { check: name, ok, message } of outcomes) {
      if (ok) console.log(`${name}: ok, ${message}`);
      else console.error(`${name}: FAILED, ${message}`);
    }
    if (outcomes.every((result) => result.ok)) check.cache.recordPass();
    else code = ExitCode.failed;
  });
  return code;
});

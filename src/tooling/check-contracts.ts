/**
 * `npm run check:contracts`: the examples check, the drift check and the breaking-change gate of
 * every contract in `redocly.yaml`, and the check of the specs' copies in prose and examples
 * (`spec-copies.ts`), in one process, so `npm run check` loads the spec tooling once rather than
 * once per check (`check:examples`, `check:drift` and `diff` stay, for one check at a time). The
 * gate's `redocly diff` runs start first, since they take longest. When every input (the
 * contracts, their releases and generated types, the README and changelog they are compared with,
 * the lock file's tool versions, and `src/`, whose code does the checking) is as at the last pass,
 * nothing runs again (`pass-cache.ts`; `CHECK_CACHE=off` runs it all).
 * Exit codes: 0 all pass, 1 one failed.
 */
import { ExitCode, runCli } from '../cli/exit.js';
import { readContracts } from '../contract/project.js';
import { passCache } from './pass-cache.js';

await runCli('check:contracts', async () => {
  const cache = passCache('contracts', ['openapi', 'generated', 'redocly.yaml', 'README.md', 'CHANGELOG.md', 'package-lock.json', 'src']);
  if (cache.unchanged) {
    console.log('check:contracts: ok, its inputs are unchanged since its last pass (CHECK_CACHE=off runs it anyway)');
    return ExitCode.ok;
  }
  // Loaded only now: openapi-typescript, TypeScript 5 and Redocly's core cost a second to load, which a skipped run need not pay.
  const [{ checkBreakingChanges }, { checkDrift }, { checkValueExamples }, { checkSpecCopies, loadSpecs }] = await Promise.all([
    import('./breaking-changes.js'),
    import('./drift.js'),
    import('./examples-check.js'),
    import('./spec-copies.js'),
  ]);
  let code: ExitCode = ExitCode.ok;
  const report = (check: string, result: { ok: boolean; message: string }) => {
    if (result.ok) console.log(`${check}: ok, ${result.message}`);
    else {
      console.error(`${check}: FAILED, ${result.message}`);
      code = ExitCode.failed;
    }
  };
  const contracts = readContracts();
  const gates = contracts.map((contract) => checkBreakingChanges(contract));
  // Handled at once, so a failed redocly run is no unhandled rejection while the other checks run; awaited below, it fails the command.
  for (const gate of gates) gate.catch(() => undefined);
  for (const { spec, types } of contracts) {
    report('examples', checkValueExamples(spec));
    report('drift', await checkDrift({ spec, types }));
  }
  report('copies', checkSpecCopies(loadSpecs()));
  for (const gate of gates) report('diff', await gate);
  if (code === ExitCode.ok) cache.recordPass();
  return code;
});

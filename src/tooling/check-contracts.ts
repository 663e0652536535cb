/**
 * `npm run check:contracts`: the examples check, the drift check and the breaking-change gate of
 * every contract in `redocly.yaml`, and the check of the specs' copies in prose and examples
 * (`spec-copies.ts`), in one process, so `npm run check` loads the spec tooling once rather than
 * once per check (`check:examples`, `check:drift` and `diff` stay, for one check at a time). The
 * gate's `redocly diff` runs start first, since they take longest. When every input (the
 * contracts, their releases and generated types, the README and changelog they are compared with,
 * the lock file's tool versions, and `src/`, whose code does the checking) is as at the last pass,
 * nothing runs again (`pass-cache.ts`; `CHECK_CACHE=off` runs it all). Each kind of check has its own
 * cache over what it reads: an edit to the server's code runs only the copies check again.
 * Exit codes: 0 all pass, 1 one failed.
 */
import { ExitCode, runCli } from '../cli/exit.js';
import { readContracts } from '../contract/project.js';
import { passCache } from './pass-cache.js';

/** The code these checks run: a change elsewhere in `src/` is not a reason to run the slow ones again. */
const TOOLING = ['src/tooling', 'src/contract', 'src/process', 'package-lock.json'];

await runCli('check:contracts', async () => {
  // One pass cache per kind of check, each over what it reads, so that an edit to the server's code
  // runs the copies check again but not `redocly diff` (about 1.8 s of CPU) or the drift check.
  const caches = {
    diff: passCache('contracts-diff', ['openapi', 'redocly.yaml', 'CHANGELOG.md', ...TOOLING]),
    generated: passCache('contracts-generated', ['openapi', 'generated', 'redocly.yaml', ...TOOLING]),
    copies: passCache('contracts-copies', ['openapi', 'generated', 'redocly.yaml', 'README.md', 'CHANGELOG.md', 'package-lock.json', 'src']),
  };
  const skipped = Object.entries(caches)
    .filter(([, cache]) => cache.unchanged)
    .map(([name]) => name);
  if (skipped.length === Object.keys(caches).length) {
    console.log('check:contracts: ok, its inputs are unchanged since its last pass (CHECK_CACHE=off runs it anyway)');
    return ExitCode.ok;
  }
  if (skipped.length > 0) console.log(`check:contracts: ${skipped.join(', ')}: ok, their inputs are unchanged since their last pass`);
  // Loaded only when needed: openapi-typescript, TypeScript 5 and Redocly's core cost a second to load, which a skipped check need not pay.
  const [breakingChanges, drift, examples, copies] = await Promise.all([
    caches.diff.unchanged ? undefined : import('./breaking-changes.js'),
    caches.generated.unchanged ? undefined : import('./drift.js'),
    caches.generated.unchanged ? undefined : import('./examples-check.js'),
    caches.copies.unchanged ? undefined : import('./spec-copies.js'),
  ]);
  const failed = new Set<keyof typeof caches>();
  const report = (cache: keyof typeof caches, check: string, result: { ok: boolean; message: string }) => {
    if (result.ok) console.log(`${check}: ok, ${result.message}`);
    else {
      console.error(`${check}: FAILED, ${result.message}`);
      failed.add(cache);
    }
  };
  const contracts = readContracts();
  const gates = breakingChanges ? contracts.map((contract) => breakingChanges.checkBreakingChanges(contract)) : [];
  // Handled at once, so a failed redocly run is no unhandled rejection while the other checks run; awaited below, it fails the command.
  for (const gate of gates) gate.catch(() => undefined);
  if (drift && examples) {
    for (const { spec, types } of contracts) {
      report('generated', 'examples', examples.checkValueExamples(spec));
      report('generated', 'drift', await drift.checkDrift({ spec, types }));
    }
  }
  if (copies) report('copies', 'copies', copies.checkSpecCopies(copies.loadSpecs()));
  for (const gate of gates) report('diff', 'diff', await gate);
  for (const [name, cache] of Object.entries(caches) as Array<[keyof typeof caches, (typeof caches)[keyof typeof caches]]>) {
    if (!cache.unchanged && !failed.has(name)) cache.recordPass();
  }
  return failed.size === 0 ? ExitCode.ok : ExitCode.failed;
});

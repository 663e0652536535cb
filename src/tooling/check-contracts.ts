/**
 * `npm run check:contracts`: the examples check and the drift check of every contract in
 * `redocly.yaml`, in one process, so `npm run check` loads the spec tooling once rather than
 * once per check (`check:examples` and `check:drift` stay, for one check at a time).
 * Exit codes: 0 both pass, 1 one failed.
 */
import { ExitCode, runCli } from '../cli/exit.js';
import { readContracts } from '../contract/project.js';
import { checkDrift } from './drift.js';
import { checkValueExamples } from './examples-check.js';

await runCli('check:contracts', async () => {
  let code: ExitCode = ExitCode.ok;
  const report = (check: string, result: { ok: boolean; message: string }) => {
    if (result.ok) console.log(`${check}: ok, ${result.message}`);
    else {
      console.error(`${check}: FAILED, ${result.message}`);
      code = ExitCode.failed;
    }
  };
  for (const { spec, types } of readContracts()) {
    report('examples', checkValueExamples(spec));
    report('drift', await checkDrift({ spec, types }));
  }
  return code;
});

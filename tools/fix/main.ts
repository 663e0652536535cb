/**
 * `npm run fix`: does what the checks' messages ask, where it can be done without judgement.
 * 1. writes each replacement the copies check prints into the file it names (a limit, a bound or
 *    an enum restated in prose, a spec's descriptions included);
 * 2. regenerates the types of every contract (`npm run generate`), descriptions and all;
 * 3. typechecks, and writes a stub of each handler the typecheck says is missing
 *    (`notImplemented`, which answers 500 "not implemented" and logs which handler to write), and the
 *    route of each list operation the client's `LIST_ROUTES` lacks, read from the spec.
 * 4. formats the files Biome says are unformatted (`format.ts`), as `npm run format:fix` would.
 * 5. runs every step of `npm run check`, and says it passes only when it does; else it lists every failure (none cut),
 *    each with the command or the edit that is left; beside it, says whether the breaking-change gate still fails:
 *    accepting a break is a judgement it leaves to you.
 * It prints what it did and what is left.
 * Exit codes: 0 nothing left that it knows of, 1 something is left to do by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode, runCli } from '../../src/cli/exit.js';
import { projectRoot, readContracts } from '../../src/contract/project.js';
import { loadSpec } from '../../src/contract/spec.js';
import { checkBreakingChanges } from '../check/breaking-changes.js';
import { checkSteps, failureReport, readScripts, runChecks, stepCache } from '../check/run-checks.js';
import { checkSpecCopies, loadSpecs } from '../check/spec-copies.js';
import { writeTypes } from '../generate/write-types.js';
import { formatUnformatted } from './format.js';
import { missingHandlers, writeStubs } from './handler-stubs.js';
import { CLIENT_FILE, missingListRoutes, writeListRoutes } from './list-routes.js';

await runCli('fix', async () => {
  let left = false;
  const copies = checkSpecCopies(loadSpecs());
  // Each file's replacements from the last back, so each leaves the places of those before it where the check found them.
  for (const file of new Set(copies.replacements.map((replacement) => replacement.file))) {
    const path = join(projectRoot, file);
    let text = readFileSync(path, 'utf8');
    const inFile = copies.replacements.filter((replacement) => replacement.file === file).sort((a, b) => b.index - a.index);
    for (const { index, from, to } of inFile) {
      if (!text.startsWith(from, index)) throw new Error(`${file} changed while fix ran: "${from}" is no longer where the check found it`);
      text = text.slice(0, index) + to + text.slice(index + from.length);
    }
    writeFileSync(path, text);
    for (const { line, from, to } of inFile.reverse()) console.log(`fix: ${file}:${line}: "${from}" is now "${to}"`);
  }
  const manual = copies.problems.length - copies.replacements.length;
  if (manual > 0) {
    left = true;
    console.log(`fix: ${manual} stale cop${manual === 1 ? 'y needs' : 'ies need'} a hand (npm run check:contracts names them)`);
  }

  // After the replacements: a copy in a spec's description is in its generated types too.
  for (const contract of readContracts()) {
    const { changed } = await writeTypes(contract);
    console.log(`fix: ${contract.types.replace(`${projectRoot}/`, '')} ${changed ? 'regenerated' : 'already up to date'}`);
  }
  // The typecheck `npm run check` runs (incremental, and its pass recorded for check's run below), in the plain
  // format the missing handlers are read from: TypeScript 7 is pretty even in a pipe.
  const scripts = readScripts();
  const [typechecked] = await runChecks(['typecheck'], { typecheck: `${scripts['typecheck']} --pretty false` }, projectRoot, stepCache);
  const typecheck = typechecked?.output ?? '';
  for (const missing of missingHandlers(typecheck, projectRoot)) {
    const stubs = writeStubs(projectRoot, missing);
    if (!stubs.written) {
      left = true;
      console.log(`fix: ${stubs.problem}`);
      continue;
    }
    for (const id of missing.operationIds) console.log(`fix: ${missing.file}: a stub of the handler ${id} (answers 500 "not implemented" until you write it)`);
  }
  const listRoutes = missingListRoutes(typecheck);
  if (listRoutes) {
    const { unknown } = writeListRoutes(projectRoot, loadSpec(), listRoutes);
    for (const id of listRoutes.operationIds.filter((id) => !unknown.includes(id)))
      console.log(`fix: ${CLIENT_FILE}: the route of the list operation ${id} in LIST_ROUTES, read from the spec (paginate walks it now)`);
  }
  // What npm run format:fix does, on the files Biome says are unformatted: its own writes above, or a file saved unformatted.
  const formatting = await formatUnformatted(projectRoot);
  for (const file of formatting.formatted) console.log(`fix: ${file} formatted (biome format --write, as npm run format:fix does)`);
  if (formatting.problem) {
    left = true;
    console.log(`fix: ${formatting.problem}`);
  }

  // Said only after it is checked: every step of `npm run check` (which also finds what fix knows nothing of: a linter's
  // rule, a broken example, a formatting error the formatter cannot mend), and beside it what needs a judgement fix
  // must not make: a change that can break a client of the release.
  const [gates, results] = await Promise.all([
    Promise.all(readContracts().map(async (contract) => ({ contract, gate: await checkBreakingChanges(contract) }))),
    runChecks(checkSteps(scripts), scripts, projectRoot, stepCache),
  ]);
  for (const { contract, gate } of gates) {
    if (gate.ok) continue;
    left = true;
    console.log(
      `fix: ${contract.spec.replace(`${projectRoot}/`, '')} has ${gate.breaking.length} change${gate.breaking.length === 1 ? '' : 's'} that can break a client of its release, which is your call: ` +
        'raise the major version with a CHANGELOG section, or accept each change with its reason (npm run check:contracts says how)',
    );
  }
  if (results.every((result) => result.ok)) {
    console.log(left ? 'fix: npm run check passes, but the rest above is yours' : 'fix: done, and npm run check passes');
    return left ? ExitCode.failed : ExitCode.ok;
  }
  // Every failure, none cut (npm run check shows a few per step before its full output), each with what is left to do.
  console.log(
    `fix: npm run check still fails (${results
      .filter((result) => !result.ok)
      .map((result) => result.name)
      .join(', ')}); what it could not do, each with the command or the edit:`,
  );
  for (const line of failureReport(results, { afterFix: true })) console.log(`  ${line}`);
  console.log('fix: done what it could; the rest above is yours (npm run check shows it again)');
  return ExitCode.failed;
});

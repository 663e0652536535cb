/**
 * `npm run fix`: does what the checks' messages ask, where it can be done without judgement.
 * 1. writes each replacement the copies check prints into the file it names (a limit, a bound or
 *    an enum restated in prose, a spec's descriptions included);
 * 2. regenerates the types of every contract (`npm run generate`), descriptions and all;
 * 3. typechecks, and writes a stub of each handler the typecheck says is missing
 *    (`notImplemented`, which answers 500 "not implemented" and logs which handler to write), and the
 *    route of each list operation the client's `LIST_ROUTES` lacks, read from the spec.
 * 4. says whether the breaking-change gate still fails: accepting a break is a judgement it leaves to you.
 * 5. runs `npm run check`, and says it passes only when it does; else it prints what check says failed, each with its fix.
 * It prints what it did and what is left.
 * Exit codes: 0 nothing left that it knows of, 1 something is left to do by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode, runCli } from '../../src/cli/exit.js';
import { projectRoot, readContracts } from '../../src/contract/project.js';
import { loadSpec } from '../../src/contract/spec.js';
import { checkBreakingChanges } from '../check/breaking-changes.js';
import { checkSpecCopies, loadSpecs } from '../check/spec-copies.js';
import { writeTypes } from '../generate/write-types.js';
import { typescriptCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';
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
  const typecheck = await runCommand(typescriptCommand(['-p', 'tsconfig.json', '--pretty', 'false']), { cwd: projectRoot, timeoutMs: 300_000 });
  for (const missing of missingHandlers(typecheck.stdout, projectRoot)) {
    const stubs = writeStubs(projectRoot, missing);
    if (!stubs.written) {
      left = true;
      console.log(`fix: ${stubs.problem}`);
      continue;
    }
    for (const id of missing.operationIds) console.log(`fix: ${missing.file}: a stub of the handler ${id} (answers 500 "not implemented" until you write it)`);
  }
  const listRoutes = missingListRoutes(typecheck.stdout);
  if (listRoutes) {
    const { unknown } = writeListRoutes(projectRoot, loadSpec(), listRoutes);
    for (const id of listRoutes.operationIds.filter((id) => !unknown.includes(id)))
      console.log(`fix: ${CLIENT_FILE}: the route of the list operation ${id} in LIST_ROUTES, read from the spec (paginate walks it now)`);
  }
  const after =
    missingHandlers(typecheck.stdout, projectRoot).length > 0 || listRoutes
      ? await runCommand(typescriptCommand(['-p', 'tsconfig.json', '--pretty', 'false']), { cwd: projectRoot, timeoutMs: 300_000 })
      : typecheck;
  const errors = after.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
  if (errors.length > 0) {
    left = true;
    console.log(`fix: the typecheck still fails (${errors.length} error${errors.length === 1 ? '' : 's'}), which it cannot fix:`);
    for (const error of errors.slice(0, 10)) console.log(`  ${error.trim()}`);
  }
  // What needs a judgement it must not make: a change that can break a client of the release.
  for (const contract of readContracts()) {
    const gate = await checkBreakingChanges(contract);
    if (gate.ok) continue;
    left = true;
    console.log(
      `fix: ${contract.spec.replace(`${projectRoot}/`, '')} has ${gate.breaking.length} change${gate.breaking.length === 1 ? '' : 's'} that can break a client of its release, which is your call: ` +
        'raise the major version with a CHANGELOG section, or accept each change with its reason (npm run check:contracts says how)',
    );
  }
  // Said only after it is checked: `npm run check` itself, which also finds what fix knows nothing of (a linter's
  // rule, a broken example, a formatting error), each with its own fix command.
  const check = await runCommand(['npm', 'run', '--silent', 'check'], { cwd: projectRoot, timeoutMs: 600_000, env: { FORCE_COLOR: '0' } });
  if (check.code === 0) {
    console.log(left ? 'fix: npm run check passes, but the rest above is yours' : 'fix: done, and npm run check passes');
    return left ? ExitCode.failed : ExitCode.ok;
  }
  // Its report leads with what failed and the command that fixes each, down to its summary line; the full output is one `npm run check` away.
  const lines = check.stdout.split('\n');
  const summary = lines.findIndex((line) => /^check: /.test(line));
  console.log('fix: npm run check still fails; what it says (each with its fix, or the edit to make):');
  for (const line of lines.slice(0, summary === -1 ? 40 : summary + 1)) if (line.trim() !== '') console.log(`  ${line}`);
  console.log(left ? 'fix: done what it could; the rest above is yours' : 'fix: done what it could; what check says above is yours');
  return ExitCode.failed;
});

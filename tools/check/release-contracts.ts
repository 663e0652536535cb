import { Command } from 'commander';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse, parseDocument } from 'yaml';
import { CommandFailed, ExitCode, runCli, UsageError } from '../../src/cli/exit.js';
import { readContracts, type Contract } from '../../src/contract/project.js';
import { acceptedChangesPath, changelogPath, checkBreakingChanges } from './breaking-changes.js';
import { findRelease, readChangelog } from './changelog.js';
import { displayPath } from './display-path.js';

const program = new Command('release:contracts')
  .description(
    'Release every contract whose info.version is ahead of its released copy: check it against the release gate and CHANGELOG.md, ' +
      'then copy the spec to where x-released in redocly.yaml says and empty its accepted changes.',
  )
  .option('--api <name>', 'only this contract of redocly.yaml (main, account)')
  .exitOverride();

function versionOf(file: string): string {
  const version = (parse(readFileSync(file, 'utf8')) as { info?: { version?: unknown } } | null)?.info?.version;
  if (typeof version !== 'string') throw new CommandFailed(`${displayPath(file)} has no info.version`);
  return version;
}

/** Releases one contract, or says why not. Returns what it did, for the log. */
async function release(contract: Contract): Promise<string> {
  const file = basename(contract.spec);
  const working = versionOf(contract.spec);
  const released = versionOf(contract.released);
  if (working === released) {
    const same = readFileSync(contract.spec, 'utf8') === readFileSync(contract.released, 'utf8');
    return same
      ? `${file} ${working} is already released`
      : `${file} is still ${working}, its released version, so there is nothing to release; raise info.version in ${displayPath(contract.spec)} first`;
  }
  const gate = await checkBreakingChanges(contract);
  if (!gate.ok) throw new CommandFailed(`${file} ${working} cannot be released:\n${gate.message}`);
  if (!findRelease(readChangelog(changelogPath()), file, working))
    throw new CommandFailed(`add a "## ${file} ${working} (<date>)" section to ${displayPath(changelogPath())} saying what changed, then release again`);

  copyFileSync(contract.spec, contract.released);
  const acceptedFile = acceptedChangesPath(contract);
  const accepted = parseDocument(readFileSync(acceptedFile, 'utf8'));
  // Accepted against the old copy; against the new one there is nothing to accept yet.
  accepted.set(file, accepted.createNode([]));
  writeFileSync(acceptedFile, accepted.toString());
  return `released ${file} ${working} (was ${released}) to ${displayPath(contract.released)}; commit it with ${displayPath(changelogPath())}`;
}

await runCli('release:contracts', async () => {
  const options = program.parse().opts<{ api?: string }>();
  const contracts = readContracts();
  const chosen = options.api ? contracts.filter((contract) => contract.name === options.api) : contracts;
  if (chosen.length === 0) throw new UsageError(`redocly.yaml has no api ${options.api}; it has ${contracts.map((contract) => contract.name).join(', ')}`);
  for (const contract of chosen) console.log(await release(contract));
  return ExitCode.ok;
});

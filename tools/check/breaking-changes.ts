import { basename, join, resolve } from 'node:path';
import { projectRoot, type Contract } from '../../src/contract/project.js';
import { readAcceptedChanges } from './accepted-changes.js';
import { readChangelog } from './changelog.js';
import { displayPath } from './display-path.js';
import { diffDescriptions, describePlace, type DiffReport } from './redocly-diff.js';
import { judgeRelease, type GateResult } from './release-gate.js';

/** Where the release notes of every contract are kept. */
export const changelogPath = (root = projectRoot) => join(root, 'CHANGELOG.md');

/** Beside the released copies: the major changes accepted against them, with reasons. */
export const acceptedChangesPath = (contract: Pick<Contract, 'released'>) => join(resolve(contract.released, '..'), 'accepted-changes.yaml');

export interface ContractGateResult extends GateResult {
  contract: Contract;
  report: DiffReport;
}

/**
 * Compares a contract's working spec (or `revision`, a copy to try) with its last
 * release and judges the difference (see `judgeRelease`).
 */
export async function checkBreakingChanges(contract: Contract, revision: string = contract.spec, root = projectRoot): Promise<ContractGateResult> {
  const report = await diffDescriptions(contract.released, revision, join(root, 'redocly.yaml'));
  const file = basename(contract.spec);
  const acceptedFile = acceptedChangesPath(contract);
  const result = judgeRelease({
    file,
    specName: displayPath(revision),
    releasedName: displayPath(contract.released),
    report,
    accepted: readAcceptedChanges(acceptedFile)[file] ?? [],
    changelog: readChangelog(changelogPath(root)),
    changelogName: displayPath(changelogPath(root)),
    acceptedName: displayPath(acceptedFile),
  });
  return { ...result, contract, report };
}

/** Every change of a report on one line each, major first: what `npm run diff --all` lists. */
export function listChanges(report: DiffReport): string[] {
  const order = { major: 0, minor: 1, patch: 2 } as const;
  return [...report.changes]
    .sort((a, b) => order[a.impact] - order[b.impact])
    .map((change) => `  ${change.impact.padEnd(5)} ${change.kind.padEnd(8)} ${describePlace(change)}`);
}

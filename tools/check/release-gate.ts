import type { AcceptedChange } from './accepted-changes.js';
import { type ChangelogRelease, findRelease } from './changelog.js';
import { type ContractChange, type DiffReport, describePlace, type Verdict } from './redocly-diff.js';

export interface GateInput {
  /** The spec's file name, as CHANGELOG.md and the accepted-changes file name it: `openapi.yaml`. */
  file: string;
  /** The working spec and the released copy, as paths to show. */
  specName: string;
  releasedName: string;
  report: DiffReport;
  accepted: readonly AcceptedChange[];
  changelog: readonly ChangelogRelease[];
  /** Where the changelog and the accepted changes live, as paths to show. */
  changelogName: string;
  acceptedName: string;
}

export interface GateResult {
  ok: boolean;
  /** Major changes nothing accepts: each one can break a client of the release. */
  breaking: ContractChange[];
  /** The whole report, ending with the fixes when it fails. */
  message: string;
}

/**
 * Decides whether the working spec may follow its last release: no change that can
 * break a client (a major one, by `redocly diff`'s rules), unless it is listed as
 * accepted with a reason, or `info.version`'s major is raised and CHANGELOG.md's
 * section for that version says what breaks.
 */
export function judgeRelease(input: GateInput): GateResult {
  const { file, specName, releasedName, report } = input;
  const released = report.infoVersions.base;
  const working = report.infoVersions.revision;
  const fail = (lines: string[], breaking: ContractChange[] = []): GateResult => ({ ok: false, breaking, message: lines.join('\n') });

  const releasedVersion = parseVersion(released);
  const workingVersion = parseVersion(working);
  if (!releasedVersion || !workingVersion)
    return fail([`info.version must be a semantic version (major.minor.patch): ${specName} has ${working}, ${releasedName} has ${released}.`]);
  if (compareVersions(workingVersion, releasedVersion) < 0)
    return fail([`info.version of ${specName} is ${working}, lower than the released ${released}. A version only goes up.`]);
  if (!findRelease(input.changelog, file, released))
    return fail([`${input.changelogName} has no "## ${file} ${released}" section, but ${releasedName} is that release. Every release is recorded there.`]);

  const majors = input.report.changes.filter((change) => change.impact === 'major');
  const used = new Set<AcceptedChange>();
  const acceptedLines: string[] = [];
  const breaking: ContractChange[] = [];
  for (const change of majors) {
    const reasons = change.verdicts.filter((verdict) => verdict.impact === 'major').map((verdict) => input.accepted.find((entry) => accepts(entry, verdict)));
    if (reasons.length > 0 && reasons.every((entry) => entry !== undefined)) {
      for (const entry of reasons) used.add(entry as AcceptedChange);
      const rules = [...new Set(change.verdicts.map((verdict) => verdict.ruleId))].join(', ');
      acceptedLines.push(
        `  accepted: ${change.kind} ${describePlace(change)} (${rules}), because ${[...new Set(reasons.map((entry) => entry?.reason))].join('; ')}`,
      );
    } else {
      breaking.push(change);
    }
  }
  // An entry whose rule and place still match a change, but whose values no longer do, is not stale: its
  // change gained a value its reason does not cover, and that change is judged as breaking below.
  const samePlace = (entry: AcceptedChange) =>
    majors.some((change) => change.verdicts.some((verdict) => verdict.ruleId === entry.rule && verdict.location.pointer === entry.at));
  const outgrown = input.accepted.filter((entry) => !used.has(entry) && samePlace(entry));
  const stale = input.accepted.filter((entry) => !used.has(entry) && !samePlace(entry));
  const { major, minor, patch } = report.summary;
  const summary = `${specName} against its release ${released} (${releasedName}): changes ${major} major, ${minor} minor, ${patch} patch`;

  if (stale.length > 0) {
    return fail([
      summary,
      ...acceptedLines,
      `${input.acceptedName} accepts ${stale.length === 1 ? 'a change' : 'changes'} that redocly diff no longer finds in ${specName}:`,
      ...stale.map((entry) => `  ${entry.rule} at ${entry.at}`),
      'Remove the entry (the change was undone, or the tool now rates it differently), so the list stays the list of real exceptions.',
    ]);
  }
  if (breaking.length === 0) return { ok: true, breaking, message: [`${summary}; nothing breaks a client`, ...acceptedLines].join('\n') };

  const nextMajor = `${releasedVersion[0] + 1}.0.0`;
  if (workingVersion[0] > releasedVersion[0]) {
    const section = findRelease(input.changelog, file, working);
    if (section && section.breaking.length > 0) {
      return {
        ok: true,
        breaking,
        message: [
          `${summary}; released as the breaking version ${working} (${input.changelogName}:${section.line} lists what breaks):`,
          ...breaking.map((change) => `  ${describeChange(change)}`),
          ...acceptedLines,
        ].join('\n'),
      };
    }
    return fail(
      [
        `${summary}. info.version is ${working}, a new major version, but ${input.changelogName} does not say what breaks:`,
        ...breaking.map((change) => `  ${describeChange(change)}`),
        ...acceptedLines,
        `Add a "## ${file} ${working} (<date>)" section to ${input.changelogName} with a "### Breaking changes" list: each change above, and what a client must do about it.`,
      ],
      breaking,
    );
  }
  return fail(
    [
      `${summary}. ${breaking.length === 1 ? 'This change' : `These ${breaking.length} changes`} can break clients built against ${released}:`,
      ...breaking.map((change) => `  ${describeChange(change)}`),
      ...acceptedLines,
      'Fix it one of two ways:',
      `  - keep clients working: undo the change, or make it compatible (add rather than remove or rename, make a new field optional, widen rather than narrow); or`,
      `  - release a breaking version: raise info.version in ${specName} to ${nextMajor} and add a "## ${file} ${nextMajor} (<date>)" section to ${input.changelogName} with a "### Breaking changes" list saying what breaks and what clients must change.`,
      `(If a change breaks no client although the rule says so, list it in ${input.acceptedName} with the reason.)`,
      ...outgrown.map(
        (entry) =>
          `(${input.acceptedName} accepts ${entry.rule} at ${entry.at} for ${(entry.values ?? []).join(', ')} only: a value added since needs its own reason there, in \`values\`, or one of the fixes above.)`,
      ),
    ],
    breaking,
  );
}

/** One change on one line (two with its message): the place, the rules and where to look. */
export function describeChange(change: ContractChange): string {
  const verdicts = change.verdicts.filter((verdict) => verdict.impact === change.impact);
  const first = verdicts[0];
  const where = first ? ` at ${first.location.file}:${first.location.line} (${first.location.pointer})` : '';
  const messages = verdicts.map((verdict) => `${verdict.message} (${verdict.ruleId})`).join(' ');
  return `${change.kind} ${describePlace(change)}${where}${messages ? `\n    ${messages}` : ''}`;
}

type Version = [major: number, minor: number, patch: number];

function parseVersion(text: string): Version | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * Whether an accepted entry covers a rule's verdict: the same rule at the same place and, for a verdict that
 * lists enum values ("gained values: 'a', 'b'."), exactly the values the entry names. An entry's reason is
 * about the values it was written for; a value added since at the same place needs a reason of its own.
 */
function accepts(entry: AcceptedChange, verdict: Verdict): boolean {
  if (entry.rule !== verdict.ruleId || entry.at !== verdict.location.pointer) return false;
  const listed = /(?:gained|lost) values: (.*)\.$/.exec(verdict.message);
  if (!listed) return entry.values === undefined;
  const values = [...(listed[1] ?? '').matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((match) => match[1]);
  return entry.values !== undefined && entry.values.length === values.length && values.every((value) => entry.values?.includes(value ?? ''));
}

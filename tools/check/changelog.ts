import { readFileSync } from 'node:fs';

/** One release of one contract in `CHANGELOG.md`: a `## <file> <version> (<date>)` section. */
export interface ChangelogRelease {
  /** The spec's file name, `openapi.yaml` or `account.yaml`. */
  file: string;
  version: string;
  /** The items of its `### Breaking changes` list (empty when it has none). */
  breaking: string[];
  /** 1-based line of its heading. */
  line: number;
}

const RELEASE_HEADING = /^## (\S+\.(?:ya?ml|json)) (\d+\.\d+\.\d+\S*)(?:\s|$)/;
const BREAKING_HEADING = /^### Breaking changes\s*$/i;

/** The release sections of a changelog, in the order written (newest first, by convention). */
export function parseChangelog(markdown: string): ChangelogRelease[] {
  const releases: ChangelogRelease[] = [];
  let current: ChangelogRelease | undefined;
  let inBreaking = false;
  markdown.split('\n').forEach((line, index) => {
    const heading = RELEASE_HEADING.exec(line);
    if (heading) {
      current = { file: heading[1] as string, version: heading[2] as string, breaking: [], line: index + 1 };
      releases.push(current);
      inBreaking = false;
      return;
    }
    if (/^##? /.test(line)) {
      current = undefined; // another level-2 section (Unreleased, ...) ends the release
      inBreaking = false;
      return;
    }
    if (/^### /.test(line)) {
      inBreaking = BREAKING_HEADING.test(line);
      return;
    }
    const item = /^\s*[-*] (.+)/.exec(line);
    if (current && inBreaking && item) current.breaking.push((item[1] as string).trim());
  });
  return releases;
}

/** Reads and parses a changelog file; a missing file has no releases. */
export function readChangelog(path: string): ChangelogRelease[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return parseChangelog(text);
}

/** The section of a contract's release, if the changelog has one. */
export function findRelease(releases: readonly ChangelogRelease[], file: string, version: string): ChangelogRelease | undefined {
  return releases.find((release) => release.file === file && release.version === version);
}

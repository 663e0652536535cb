/**
 * The latest full run of `npm run bench`, written by the bench itself into `docs/performance.md` between two
 * markers: the table, the targets and the machine's load, with the date and the commit it measured, so the page
 * never shows figures nobody can trace to a run.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../src/contract/project.js';
import { type BenchReport, formatMarkdownTable, formatTargets } from './report.js';

export const PERFORMANCE_PAGE = join(projectRoot, 'docs', 'performance.md');
const START = '<!-- bench:latest-run:start (written by npm run bench; edits between the markers are overwritten) -->';
const END = '<!-- bench:latest-run:end -->';

/** The commit the run measured, `+ changes` when the work tree differed from it. */
export function measuredCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: projectRoot, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} + uncommitted changes` : commit;
  } catch {
    return 'unknown (no git)';
  }
}

export function latestRunSection(report: BenchReport, commit: string): string {
  return [
    START,
    `The latest full run: ${report.startedAt.replace('T', ' ').slice(0, 16)} UTC, commit \`${commit}\`, ${report.machine.cpu}, ${report.machine.cores} cores, Node ${report.machine.node}; ${report.machine.pinning}.`,
    `${report.settings.rounds} rounds of ${report.settings.durationSeconds} s per server, alternating, ${report.settings.connections} connections; ${report.notes.at(-1) ?? ''}.`,
    '',
    formatMarkdownTable(report.servers),
    '',
    '```',
    formatTargets(report.targets),
    '```',
    END,
  ].join('\n');
}

/** Replaces the section between the markers (or adds it after the page's first paragraph when there is none yet). */
export function writeLatestRun(report: BenchReport, commit = measuredCommit(), page = PERFORMANCE_PAGE): void {
  const text = readFileSync(page, 'utf8');
  const section = latestRunSection(report, commit);
  const start = text.indexOf(START.slice(0, 30));
  const end = text.indexOf(END);
  if (start >= 0 && end > start) writeFileSync(page, `${text.slice(0, start)}${section}${text.slice(end + END.length)}`);
  else {
    const afterFirstParagraph = text.indexOf('\n\n', text.indexOf('\n\n') + 2);
    writeFileSync(page, `${text.slice(0, afterFirstParagraph)}\n\n${section}${text.slice(afterFirstParagraph)}`);
  }
}

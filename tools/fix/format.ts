/**
 * The formatter, run by `npm run fix` on the files Biome says are not formatted (its own stubs and routes, or a file
 * saved unformatted): the formatting error `npm run check:code` fails on is one `npm run fix` can fix. Only those
 * files are written, and only their formatting; lint findings, which can need a judgement, are left to `check`.
 */
import { binCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';

interface BiomeReport {
  diagnostics: Array<{ severity: string; category: string; location?: { path?: string } }>;
}

/**
 * The files of a `biome format --reporter=json` report that the formatter would change. (Biome calls that reporter
 * experimental; its version is pinned, and `test/tools/fix/format.test.ts` reads a real report.) A file that does not
 * parse is left out: Biome will not format it, and naming it to `--write` fails the whole run.
 */
export function unformattedFiles(report: string): string[] {
  const { diagnostics } = JSON.parse(report) as BiomeReport;
  const pathOf = (diagnostic: BiomeReport['diagnostics'][number]) => diagnostic.location?.path ?? '';
  const unparsable = new Set(diagnostics.filter((diagnostic) => diagnostic.category === 'parse').map(pathOf));
  const files = diagnostics.filter((diagnostic) => diagnostic.category === 'format').map(pathOf);
  return [...new Set(files.filter((file) => file !== '' && !unparsable.has(file)))];
}

/**
 * Formats every file of the project Biome says is not formatted, as `npm run format:fix` would, and returns them;
 * or why it could not (Biome's report unreadable, or its write failing).
 */
export async function formatUnformatted(root: string): Promise<{ formatted: string[]; problem?: string }> {
  const env = { FORCE_COLOR: '0' };
  // Every diagnostic, not Biome's first 20: a file past its limit would stay unformatted.
  const report = await runCommand(binCommand('biome', ['format', '--reporter=json', '--max-diagnostics=none']), { cwd: root, env, timeoutMs: 120_000 });
  let files: string[];
  try {
    files = unformattedFiles(report.stdout);
  } catch {
    return { formatted: [], problem: `biome format wrote no report it could read (npm run format says why): ${report.stderr.trim().split('\n')[0] ?? ''}` };
  }
  if (files.length === 0) return { formatted: [] };
  const written = await runCommand(binCommand('biome', ['format', '--write', ...files]), { cwd: root, env, timeoutMs: 120_000 });
  if (written.code !== 0) return { formatted: [], problem: `biome format --write failed on ${files.join(', ')} (npm run format:fix says why)` };
  return { formatted: files };
}

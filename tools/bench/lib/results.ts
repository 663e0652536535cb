import { join } from 'node:path';
import { projectRoot } from '../../../src/contract/project.js';

/**
 * Where a bench run keeps what it wrote (`tools/bench/results/`, git-ignored): `<name>-<time>` plus `suffix`,
 * the time in ISO form with `-` for `:` and no milliseconds, so the names sort by time and are valid on any disk.
 */
export function resultsPath(name: string, at: Date, suffix = ''): string {
  const time = at
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z');
  return join(projectRoot, 'tools', 'bench', 'results', `${name}-${time}${suffix}`);
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/contract/project.js';
import { loadSpec } from '../src/contract/spec.js';

/** The page that holds the "specified vs decided" table, copied from the spec's `info.description`. */
const DECISIONS_PAGE = 'docs/what-the-contract-decides.md';

/** The rows of the first Markdown table whose header starts with `| Topic |`. */
function decisionsTable(markdown: string): string[] {
  const lines = markdown.split('\n').map((line) => line.trim());
  const start = lines.findIndex((line) => line.startsWith('| Topic |'));
  if (start === -1) return [];
  const rows: string[] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows;
}

describe('the README', () => {
  it('links the page that shows the same "specified vs decided" table as the spec', () => {
    const page = readFileSync(join(projectRoot, DECISIONS_PAGE), 'utf8');
    const description = String((loadSpec()['info'] as { description: string }).description);
    const fromSpec = decisionsTable(description);
    expect(fromSpec.length, 'info.description in openapi/openapi.yaml should hold the "| Topic |" table of decisions').toBeGreaterThan(0);
    expect(
      decisionsTable(page),
      `the spec is the source: copy the "| Topic |" table from info.description in openapi/openapi.yaml into ${DECISIONS_PAGE}`,
    ).toEqual(fromSpec);
    expect(readFileSync(join(projectRoot, 'README.md'), 'utf8')).toContain(`](${DECISIONS_PAGE})`);
  });

  it('documents every npm script', () => {
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    const scripts = Object.keys((JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const missing = scripts.filter((name) => !readme.includes(name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`));
    expect(missing, 'add a row for each of these package.json scripts to the Scripts table in README.md').toEqual([]);
  });
});

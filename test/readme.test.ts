import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/contract/project.js';
import { loadSpec } from '../src/contract/spec.js';

const read = (file: string) => readFileSync(join(projectRoot, file), 'utf8');

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

/** The project's own Markdown: the front page and its neighbours at the root, and every page under `docs/`. */
function markdownFiles(): string[] {
  const under = (folder: string): string[] =>
    readdirSync(join(projectRoot, folder)).flatMap((entry) => {
      const path = join(folder, entry);
      if (statSync(join(projectRoot, path)).isDirectory()) return under(path);
      return entry.endsWith('.md') ? [path] : [];
    });
  return [...readdirSync(projectRoot).filter((entry) => entry.endsWith('.md')), ...under('docs')];
}

/** The lines of a Markdown text outside fenced code blocks, with their numbers. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  let fenced = false;
  return markdown.split('\n').flatMap((text, index) => {
    if (text.trimStart().startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line: index + 1, text }];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens (as github-slugger does). */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replaceAll(' ', '-');
}

/** Every anchor of a Markdown file's headings, repeated ones numbered as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading?.[1]) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** Each link of a file that is not to another site: `file:line: target` and what is wrong with it, if anything. */
function brokenLinks(file: string, markdown = read(file)): string[] {
  const problems: string[] = [];
  for (const { line, text } of proseLines(markdown)) {
    // Code spans are not links, and one may hold a `[x](y)` of its own.
    const prose = text.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', fragment] = target.split('#');
      const resolved = path === '' ? file : relative(projectRoot, join(projectRoot, dirname(file), decodeURIComponent(path)));
      const where = `${file}:${line}: ${target}`;
      if (!existsSync(join(projectRoot, resolved))) problems.push(`${where}: ${resolved} does not exist`);
      else if (fragment && resolved.endsWith('.md') && !anchors(resolved === file ? markdown : read(resolved)).has(fragment)) {
        problems.push(`${where}: ${resolved} has no heading with the anchor #${fragment}`);
      }
    }
  }
  return problems;
}

describe('the README', () => {
  it('fits on a screen or five: at most 300 lines', () => {
    const lines = read('README.md').trimEnd().split('\n').length;
    expect(lines, 'README.md is the front page: move the detail to a page of docs/ (docs/README.md lists them) and link it').toBeLessThanOrEqual(300);
  });

  it('documents every npm script', () => {
    const readme = read('README.md');
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    const missing = scripts.filter((name) => !readme.includes(name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`));
    expect(missing, 'add a row for each of these package.json scripts to the Scripts table in README.md').toEqual([]);
  });

  it('lists every page of docs/, as docs/README.md does', () => {
    const pages = readdirSync(join(projectRoot, 'docs')).filter((entry) => entry.endsWith('.md') && entry !== 'README.md');
    expect(pages.length).toBeGreaterThan(0);
    const readme = read('README.md');
    const index = read('docs/README.md');
    expect(
      pages.filter((page) => !readme.includes(`](docs/${page})`)),
      'link each of these pages from the Documentation table of README.md',
    ).toEqual([]);
    expect(
      pages.filter((page) => !index.includes(`](${page})`)),
      'link each of these pages from docs/README.md',
    ).toEqual([]);
  });
});

describe('the pages of docs/', () => {
  it('show the same "specified vs decided" table as the spec', () => {
    const description = String((loadSpec()['info'] as { description: string }).description);
    const fromSpec = decisionsTable(description);
    expect(fromSpec.length, 'info.description in openapi/openapi.yaml should hold the "| Topic |" table of decisions').toBeGreaterThan(0);
    expect(
      decisionsTable(read(DECISIONS_PAGE)),
      `the spec is the source: copy the "| Topic |" table from info.description in openapi/openapi.yaml into ${DECISIONS_PAGE}`,
    ).toEqual(fromSpec);
  });
});

describe('links between the project’s Markdown files', () => {
  it('finds the files and their anchors', () => {
    const files = markdownFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/README.md', 'docs/adr/README.md']));
    expect(
      anchors("## For frontend developers: the mock and the typed client\n### The dev loop's own times\n## Where the time goes (issue 14)\n## Tests\n## Tests"),
    ).toEqual(
      new Set(['for-frontend-developers-the-mock-and-the-typed-client', 'the-dev-loops-own-times', 'where-the-time-goes-issue-14', 'tests', 'tests-1']),
    );
  });

  it.each([
    { given: 'a file that exists', link: '[ADRs](docs/adr/README.md)', want: [] },
    { given: 'a heading of another page', link: '[env](docs/server.md#environment-variables)', want: [] },
    { given: 'another site', link: '[Hono](https://hono.dev/#top)', want: [] },
    { given: 'a link inside a code span', link: '`[x](nowhere.md)`', want: [] },
    { given: 'a file that does not exist', link: '[ops](docs/nowhere.md)', want: ['README.md:1: docs/nowhere.md: docs/nowhere.md does not exist'] },
    {
      given: 'a heading that does not exist',
      link: '[env](docs/server.md#no-such-heading)',
      want: ['README.md:1: docs/server.md#no-such-heading: docs/server.md has no heading with the anchor #no-such-heading'],
    },
    {
      given: 'a heading of its own page that moved away',
      link: '[Tests](#tests)',
      want: ['README.md:1: #tests: README.md has no heading with the anchor #tests'],
    },
  ])('checks a link to $given', ({ link, want }) => {
    expect(brokenLinks('README.md', `${link}\n`)).toEqual(want);
  });

  it.each(markdownFiles())('%s: every relative link points at a file that exists, and at a heading that exists', (file) => {
    expect(brokenLinks(file), 'fix each link: the file moved, or its heading was renamed').toEqual([]);
  });
});

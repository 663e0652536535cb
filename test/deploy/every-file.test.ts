/**
 * Every file operators are given in deploy/ is checked by a test: its path (or, for deploy/kubernetes/, whose test
 * reads every file of the folder, the folder's) is named in a test file that reads it. A file added without a test
 * fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';

function filesUnder(folder: string): string[] {
  return readdirSync(join(projectRoot, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/** The test files' text, with the tools they read their files through (tools/cluster/haproxy.ts names haproxy.cfg). */
const tests = [...filesUnder('test'), 'tools/cluster/haproxy.ts']
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(projectRoot, file), 'utf8') }));

/** Folders whose test reads every file in them (`readdirSync`), so naming the folder covers its files. */
const READ_WHOLE = ['deploy/kubernetes'];

describe('deploy/', () => {
  it('has a test for every file', () => {
    const quoted = (name: string) => new RegExp(`['\`/]${name.replace(/[.]/g, '\\.')}['\`]`);
    const untested = filesUnder('deploy').filter((file) => {
      const folder = dirname(file);
      // Named from the project's root, or from deploy/ by a test that resolves it there (compose.test.ts), or by its
      // bare name in a test that names its folder (promtool run in deploy/prometheus on alerts.test.yml).
      const names = [file, file.slice('deploy/'.length), ...READ_WHOLE.filter((whole) => folder === whole)];
      return !tests.some(({ text }) => names.some((name) => quoted(name).test(text)) || (quoted(basename(file)).test(text) && text.includes(folder)));
    });
    expect(untested).toEqual([]);
  });
});

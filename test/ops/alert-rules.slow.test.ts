/**
 * The alert rules checked and unit-tested by Debian's promtool (`.ci/run` installs the `prometheus` package):
 * `promtool check rules` on the file, and `promtool test rules` on alerts.test.yml, whose series make each
 * tested alert fire (or not) as written. Slow: it runs promtool.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { runCommand } from '../../tools/process/run-command.js';

const folder = join(projectRoot, 'deploy/prometheus');

describe('promtool on deploy/prometheus', () => {
  it('checks the rules', { timeout: 30_000 }, async () => {
    const result = await runCommand(['promtool', 'check', 'rules', 'alerts.yml'], { cwd: folder });
    expect(result.code, `${result.stdout}${result.stderr} (is Debian's prometheus package installed? .ci/run installs it)`).toBe(0);
    expect(result.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('passes the rules’ unit tests', { timeout: 30_000 }, async () => {
    const result = await runCommand(['promtool', 'test', 'rules', 'alerts.test.yml'], { cwd: folder });
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
  });
});

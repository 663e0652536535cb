/**
 * `systemd-analyze verify` on deploy/systemd/bearer-list-api.service: every key known in its section, every value
 * parsed, the unit loadable. It exits 0 on an unknown key (a warning only), so any word on its output fails the test.
 * The copy it checks differs in one thing: ExecStart names the node running this test, so a machine whose node is
 * not /usr/bin/node (verify checks that the program exists) checks the same file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNIT_FILE } from './systemd-unit.js';

const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';

/** What verify prints for the unit in `folder`, stdout and stderr, and its exit status when not 0; empty when it finds nothing. */
function verify(folder: string, text: string): string {
  const file = join(folder, 'bearer-list-api.service');
  writeFileSync(file, text);
  const run = spawnSync(SYSTEMD_ANALYZE, ['verify', file], { cwd: folder, encoding: 'utf8' });
  if (run.error) throw run.error;
  return `${run.status === 0 ? '' : `exit ${run.status}: `}${run.stdout}${run.stderr}`.trim();
}

describe('systemd-analyze verify deploy/systemd/bearer-list-api.service', () => {
  it('finds nothing to say about the unit, and speaks up about a broken one', () => {
    expect(existsSync(SYSTEMD_ANALYZE), `${SYSTEMD_ANALYZE} is missing: run \`apt-get install -y systemd\``).toBe(true);
    const folder = mkdtempSync(join(tmpdir(), 'systemd-verify-'));
    try {
      const shipped = readFileSync(UNIT_FILE, 'utf8');
      expect(shipped).toContain('ExecStart=/usr/bin/node ');
      const here = shipped.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `);
      expect(verify(folder, here)).toBe('');
      // The check can fail: a key in the wrong section, and a value systemd cannot parse.
      expect(verify(folder, here.replace('RestartSec=2', 'RestartSec=2\nStartLimitIntervalSec=60'))).toMatch(
        /Unknown key 'StartLimitIntervalSec' in section \[Service\]/,
      );
      expect(verify(folder, here.replace('ProtectSystem=strict', 'ProtectSystem=very'))).toMatch(/Failed to parse protect system value/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

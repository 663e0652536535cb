/**
 * `npm run lint` runs Spectral in its own process (tools/check/spectral.ts) rather than as its CLI. Here both
 * lint the specs with the OWASP ruleset and none of `.spectral.yaml`'s exceptions, and must find the same
 * things: an upgrade of Spectral that changes how a ruleset loads shows up here, not as a silent lint.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectRoot, readContracts } from '../../../src/contract/project.js';
import { binCommand } from '../../../tools/process/commands.js';
import { runCommand } from '../../../tools/process/run-command.js';
import { lintWithSpectral, type SpectralRulesetFile } from '../../../tools/check/spectral.js';

// Under node_modules, so the ruleset's `extends` resolves the OWASP package as from the project root.
const scratch = join(projectRoot, 'node_modules', '.cache', 'spectral-cli-parity-test');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface CliFinding {
  code: string;
  path: Array<string | number>;
  source: string;
}

const pointerOf = (path: Array<string | number>) => path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

describe('Spectral in process and the Spectral CLI', () => {
  it('find the same things in the specs on the ruleset without its exceptions', async () => {
    const config = parse(readFileSync(join(projectRoot, '.spectral.yaml'), 'utf8')) as SpectralRulesetFile;
    const specs = readContracts().map((contract) => relative(projectRoot, contract.spec));
    mkdirSync(scratch, { recursive: true });
    const ruleset = join(scratch, 'no-exceptions.spectral.yaml');
    writeFileSync(ruleset, stringify({ extends: config.extends }));
    const result = await runCommand(binCommand('spectral', ['lint', ...specs, '--ruleset', ruleset, '--format', 'json', '--quiet']), { timeoutMs: 120_000 });
    const byCli = (JSON.parse(result.stdout) as CliFinding[]).map(
      (finding) => `${relative(projectRoot, finding.source)} ${finding.code} ${pointerOf(finding.path)}`,
    );
    const inProcess = (await lintWithSpectral(specs, { ...(config.extends !== undefined && { extends: config.extends }) })).map(
      (finding) => `${finding.file} ${finding.code} ${pointerOf(finding.path)}`,
    );
    expect(byCli.length).toBeGreaterThan(0);
    expect(inProcess.sort()).toEqual(byCli.sort());
  });
});

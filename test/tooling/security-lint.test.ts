import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectRoot, readContracts } from '../../src/contract/project.js';
import { binCommand } from '../../src/process/commands.js';
import { runCommand } from '../../src/process/run-command.js';

interface SpectralConfig {
  extends: unknown;
  rules?: Record<string, unknown>;
  overrides?: Array<{ files: string[]; rules: Record<string, unknown> }>;
}
interface Finding {
  code: string;
  path: Array<string | number>;
  source: string;
}

const config = parse(readFileSync(join(projectRoot, '.spectral.yaml'), 'utf8')) as SpectralConfig;
// Under node_modules, so the ruleset's `extends` resolves the OWASP package as from the project root.
const scratch = join(projectRoot, 'node_modules', '.cache', 'security-lint-test');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every exception of `.spectral.yaml`: a rule turned off, everywhere or at one place of some files. */
const exceptions = [
  ...Object.entries(config.rules ?? {})
    .filter(([, setting]) => setting === 'off')
    .map(([rule]) => ({ rule, file: 'openapi/*.yaml', pointer: '' })),
  ...(config.overrides ?? []).flatMap((override) =>
    override.files.flatMap((target) => {
      const [file = '', pointer = ''] = target.split('#');
      return Object.keys(override.rules).map((rule) => ({ rule, file, pointer }));
    }),
  ),
];

/** `openapi/*.yaml` as a test on a path relative to the project root. */
const matchesGlob = (glob: string, file: string) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`).test(file);
const pointerOf = (path: Array<string | number>) => path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

describe('the OWASP security lint (.spectral.yaml)', () => {
  let findings: Finding[] = [];
  beforeAll(async () => {
    // The same ruleset with every exception taken out.
    mkdirSync(scratch, { recursive: true });
    const ruleset = join(scratch, 'no-exceptions.spectral.yaml');
    writeFileSync(ruleset, stringify({ extends: config.extends }));
    const specs = readContracts().map((contract) => contract.spec);
    const result = await runCommand(binCommand('spectral', ['lint', ...specs, '--ruleset', ruleset, '--format', 'json', '--quiet']), { timeoutMs: 120_000 });
    findings = (JSON.parse(result.stdout) as Finding[]).map((finding) => ({ ...finding, source: relative(projectRoot, finding.source) }));
  }, 120_000);

  it('finds something without its exceptions (so the ruleset really runs)', () => {
    expect(findings.length).toBeGreaterThan(0);
  });

  it.each(exceptions)('still needs $rule off at $file#$pointer', ({ rule, file, pointer }) => {
    const excused = findings.filter(
      (finding) => finding.code === rule && matchesGlob(file, finding.source) && `#${pointerOf(finding.path)}`.startsWith(`#${pointer}`),
    );
    expect(excused.length, `nothing in ${file}#${pointer} breaks ${rule} any more: remove this exception from .spectral.yaml`).toBeGreaterThan(0);
  });
});

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot, readContracts } from '../../../src/contract/project.js';
import { formatFindings, lintWithSpectral, type SpectralRulesetFile } from '../../../tools/check/spectral.js';

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
  const specs = readContracts().map((contract) => relative(projectRoot, contract.spec));
  let findings: Finding[] = [];
  beforeAll(async () => {
    // The same ruleset with every exception taken out, linted as `npm run lint` lints (in process; the
    // Spectral CLI finds the same: spectral-cli-parity.slow.test.ts).
    findings = (await lintWithSpectral(specs, { extends: config.extends as string[] })).map((finding) => ({ ...finding, source: finding.file }));
  }, 120_000);

  it('finds something without its exceptions (so the ruleset really runs)', () => {
    expect(findings.length).toBeGreaterThan(0);
  });

  it('takes the exceptions into account, overrides included', async () => {
    expect(await lintWithSpectral(specs)).toEqual([]);
    const withoutFirstOverride = { ...config, overrides: config.overrides?.slice(1) } as SpectralRulesetFile;
    const first = config.overrides?.[0];
    const rule = Object.keys(first?.rules ?? {})[0];
    const found = await lintWithSpectral(specs, withoutFirstOverride);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((finding) => finding.code === rule)).toBe(true);
    expect(formatFindings(found, specs)).toMatch(new RegExp(`^openapi/\\S+\\.yaml:\\d+:\\d+ \\w+ ${rule}`));
  });

  it.each(exceptions)('still needs $rule off at $file#$pointer', ({ rule, file, pointer }) => {
    const excused = findings.filter(
      (finding) => finding.code === rule && matchesGlob(file, finding.source) && `#${pointerOf(finding.path)}`.startsWith(`#${pointer}`),
    );
    expect(excused.length, `nothing in ${file}#${pointer} breaks ${rule} any more: remove this exception from .spectral.yaml`).toBeGreaterThan(0);
  });
});

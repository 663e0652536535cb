/**
 * Spectral in this process: the ruleset of `.spectral.yaml` and the specs, linted with
 * `@stoplight/spectral-core`, as the Spectral CLI lints them, without the CLI's start-up or the
 * bundling of its ruleset through rollup on every run (together about 0.6 s of the 2.1 s a lint
 * of both specs took; `npm run lint` runs this beside Redocly).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { parse } from 'yaml';
import { projectRoot } from '../../src/contract/project.js';

const { Document, Ruleset, Spectral } = spectralCore;

/** A ruleset as `.spectral.yaml` writes it: the rulesets it extends (package names), then rules and overrides. */
export interface SpectralRulesetFile {
  extends?: string | string[];
  rules?: Record<string, unknown>;
  overrides?: Array<{ files: string[]; rules: Record<string, unknown> }>;
}

export interface SpectralFinding {
  /** Relative to the project root. */
  file: string;
  /** 1-based, as an editor shows it. */
  line: number;
  column: number;
  severity: 'error' | 'warning' | 'info' | 'hint';
  code: string;
  message: string;
  path: Array<string | number>;
}

const SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;

/** The ruleset file as written, for a caller to change before linting (the security-lint test takes its exceptions out). */
export function readRulesetFile(file = resolve(projectRoot, '.spectral.yaml')): SpectralRulesetFile {
  return parse(readFileSync(file, 'utf8')) as SpectralRulesetFile;
}

/**
 * Every finding of `ruleset` in `specs` (paths relative to the project root or absolute), in file order.
 * The packages it extends are loaded from where the ruleset file is, as the CLI loads them; the
 * files of its overrides are matched relative to that file too.
 */
export async function lintWithSpectral(
  specs: readonly string[],
  ruleset: SpectralRulesetFile = readRulesetFile(),
  rulesetFile = resolve(projectRoot, '.spectral.yaml'),
): Promise<SpectralFinding[]> {
  const load = createRequire(rulesetFile);
  const extended = [ruleset.extends ?? []].flat().map((name) => {
    const loaded = load(name) as { default?: unknown };
    return loaded.default ?? loaded;
  });
  const spectral = new Spectral();
  spectral.setRuleset(new Ruleset({ ...ruleset, extends: extended } as ConstructorParameters<typeof Ruleset>[0], { source: rulesetFile }));
  const findings: SpectralFinding[] = [];
  for (const spec of specs) {
    const path = resolve(projectRoot, spec);
    const document = new Document(readFileSync(path, 'utf8'), spectralParsers.Yaml, path);
    for (const result of await spectral.run(document)) {
      findings.push({
        file: relative(projectRoot, result.source ?? path),
        line: result.range.start.line + 1,
        column: result.range.start.character + 1,
        severity: SEVERITIES[result.severity] ?? 'error',
        code: String(result.code),
        message: result.message,
        path: [...result.path],
      });
    }
  }
  return findings;
}

/** A finding as a compiler prints one: `file:line:column severity code message` (what `npm run check` leads with). */
export function findingLine(finding: Omit<SpectralFinding, 'path'>): string {
  return `${finding.file}:${finding.line}:${finding.column} ${finding.severity} ${finding.code} ${finding.message}`;
}

/** Errors first, then warnings, infos and hints, each in file order: a list cut short by a reader still shows the errors. */
export function bySeverity<T extends Pick<SpectralFinding, 'severity'>>(findings: readonly T[]): T[] {
  return [...findings].sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
}

/** One line per finding, errors first, as a compiler prints them (`file:line:column severity code message`), or the all-clear. */
export function formatFindings(findings: readonly SpectralFinding[], specs: readonly string[]): string {
  if (findings.length === 0) return `spectral: ${specs.length === 1 ? specs[0] : `${specs.length} specs`}: no findings of any severity\n`;
  return `${bySeverity(findings).map(findingLine).join('\n')}\nspectral: ${findings.length} finding${findings.length === 1 ? '' : 's'}\n`;
}

import { relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { binCommand } from '../process/commands.js';
import { runCommand } from '../process/run-command.js';

/** One finding of Spectral's OWASP ruleset (`.spectral.yaml`), located in the spec. */
export interface SecurityFinding {
  code: string;
  message: string;
  /** `openapi/openapi.yaml:122:7`. */
  location: string;
}

/**
 * Spectral's half of `npm run lint` (the OWASP API Security ruleset) on one spec, as its CLI in a
 * process of its own, so its seconds of CPU run beside the typecheck and never block the loop's
 * thread. Undefined when cancelled (a newer save); throws when Spectral could not run.
 */
export async function securityLint(spec: string, cancelSignal?: AbortSignal): Promise<SecurityFinding[] | undefined> {
  const file = relative(projectRoot, spec);
  const output = await runCommand(binCommand('spectral', ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet']), {
    cwd: projectRoot,
    timeoutMs: 120_000,
    ...(cancelSignal && { cancelSignal }),
  });
  if (cancelSignal?.aborted) return undefined;
  let findings: Array<{ code: string | number; message: string; range?: { start?: { line: number; character: number } } }>;
  try {
    // No findings print nothing at all with --quiet; a failure to run prints no JSON.
    findings = JSON.parse(output.stdout.trim() || (output.code === 0 ? '[]' : '')) as typeof findings;
  } catch {
    throw new Error(`spectral lint could not run: ${(output.stderr || output.stdout).trim().split('\n').slice(0, 3).join(' ')}`);
  }
  return findings.map((finding) => ({
    code: String(finding.code),
    message: finding.message,
    location: `${file}:${(finding.range?.start?.line ?? 0) + 1}:${(finding.range?.start?.character ?? 0) + 1}`,
  }));
}

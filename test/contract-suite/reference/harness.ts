/**
 * Runs the contract suite on a reference server as a user would run it on their own: the spec read by
 * `--spec`'s reader, the CLI's defaults (20 examples, the stateful phase), `--allow-writes` since the server
 * is an in-memory one made for the run, the caller's credential and another user's (`--other-token`).
 */
import { runContractSuite, type SuiteReport } from '../../../src/contract-suite/run.js';
import { readSpecSource } from '../../../src/contract-suite/spec/spec-source.js';

export interface ReferenceRun {
  spec: string;
  fetch: typeof globalThis.fetch;
  token?: string;
  credentials?: Record<string, string>;
  otherToken?: string;
  seed?: number;
}

/** The CLI's defaults (`cli-options.ts`): 20 examples, the stateful phase on. */
const DEFAULT_EXAMPLES = 20;

export async function runReference(run: ReferenceRun): Promise<SuiteReport> {
  const source = await readSpecSource(run.spec);
  return runContractSuite({
    spec: source.spec,
    foreign: { unknownFormats: source.unknownFormats, notes: source.notes, openapi: source.version },
    baseUrl: 'http://reference.test',
    fetch: run.fetch,
    ...(run.token !== undefined && { token: run.token }),
    ...(run.credentials && { credentials: run.credentials }),
    ...(run.otherToken !== undefined && { otherToken: run.otherToken }),
    allowWrites: true,
    stateful: true,
    examples: DEFAULT_EXAMPLES,
    seed: run.seed ?? 31,
  });
}

/** Each failing check as `<id>: <findings>`. */
export function violations(report: SuiteReport): string[] {
  return report.results
    .filter((result) => result.outcome === 'fail')
    .map((result) => `${result.id}: ${result.findings.map((finding) => `[${finding.category}] ${finding.message}`).join('; ')}`);
}

import type { Family, Location, SuiteCase } from '../case.js';
import type { Finding } from '../checks.js';
import type { OperationFacts } from '../operation-facts.js';
import type { CaseResult } from '../result.js';
import type { RunContext } from '../run-context.js';
import type { SchemaValues } from '../values/schema-values.js';

/** The families the phases report their checks under (the cases' families are derived per operation; these are not). */
export const PHASE_FAMILIES: readonly Family[] = ['property-valid', 'property-invalid', 'refused-credential', 'other-user', 'stateful', 'write-effect'];

/** What the phases after the derived cases are asked to do. */
export interface PhaseOptions {
  /** Valid and invalid requests the property phase sends per operation; 0 leaves the phase out. */
  examples: number;
  /** fast-check's seed: the same seed, spec and data send the same requests. */
  seed: number;
  /** Whether requests that may write are sent (the stateful phase's sequences, positive writes). */
  allowWrites: boolean;
  /** Whether the stateful phase runs (links and create → read → update → delete → read). */
  stateful: boolean;
  /** The target keeps no state (a mock, `--target prism`): what a write made is not expected to read back. */
  stateless?: boolean;
  /** A credential of another user, who must see none of the caller's resources. */
  otherToken?: string;
}

/** What a phase works with: the run's context, every operation's facts, valid values and its options. */
export interface PhaseContext {
  run: RunContext;
  facts: OperationFacts[];
  values: SchemaValues;
  options: PhaseOptions;
}

/** A phase: requests beyond the derived cases, each reported as a `CaseResult` like any case. */
export type Phase = (context: PhaseContext) => Promise<CaseResult[]>;

/** The case a phase reports one of its checks under (the report and the known differences read its family). */
export function phaseCase(
  facts: OperationFacts,
  draft: { family: Family; title: string; key?: string; polarity?: 'positive' | 'negative'; location?: Location; expectedStatus?: number },
): SuiteCase {
  const polarity = draft.polarity ?? 'positive';
  return {
    id: `${facts.operation.operationId} ${polarity} ${draft.family}${draft.key ? ` ${draft.key}` : ''}`,
    operation: facts.operation,
    polarity,
    family: draft.family,
    location: draft.location ?? facts.list?.location ?? (facts.body ? 'body' : 'query'),
    title: draft.title,
    expectedStatus: draft.expectedStatus ?? facts.success ?? 200,
    input: facts.baseline,
    overrides: {},
    live: facts.live,
  };
}

/** Prefixes each finding's message, so a finding says which request of a sequence it is about. */
export function labelled(label: string, findings: Finding[]): Finding[] {
  return findings.map((finding) => ({ ...finding, message: `${label}: ${finding.message}` }));
}

/**
 * Replaces every secret of the run in a result (the request it shows and its curl) by a shell variable:
 * the caller's credential is already `$API_KEY`, a refused one `$REFUSED_<SCHEME>` (the derived
 * cases'); another user's is `$OTHER_API_KEY`. A report never holds a credential in clear.
 */
export function redactSecrets(result: CaseResult, options: Pick<PhaseOptions, 'otherToken'>): CaseResult {
  const secrets: Array<[string, string]> = [];
  if (options.otherToken) secrets.push([options.otherToken, '$OTHER_API_KEY']);
  const redact = (text: string) => secrets.reduce((out, [token, name]) => (token ? out.replaceAll(token, name) : out), text);
  return {
    ...result,
    ...(result.curl !== undefined && { curl: redact(result.curl) }),
    ...(result.request && {
      request: { ...result.request, headers: Object.fromEntries(Object.entries(result.request.headers).map(([name, value]) => [name, redact(value)])) },
    }),
    findings: result.findings.map((finding) => ({ ...finding, message: redact(finding.message) })),
    ...(result.responseExcerpt !== undefined && { responseExcerpt: redact(result.responseExcerpt) }),
  };
}

/** `revoked key` → `REVOKED_KEY`: a credential's name as a shell variable. */
export function variableName(label: string): string {
  return (
    label
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || 'KEY'
  );
}

/**
 * The run as another caller: every scheme presented with `token` (another user's key, a session the run made),
 * which reports show as `label`, never in clear.
 */
export function asCaller(run: RunContext, token: string, label: string): RunContext {
  return { ...run, transport: { ...run.transport, credentials: run.transport.credentials.withToken(token) }, secrets: [[token, label], ...run.secrets] };
}

import type { Options } from 'ajv/dist/2020.js';
import type { OperationContract } from '../contract/operations.js';
import { ResponseChecker } from '../contract/response-checker.js';
import { deref, isObject, loadSpec, type OpenApiDocument } from '../contract/spec.js';
import { ApiWideAnswers } from './api-wide-answers.js';
import type { SuiteCase } from './case.js';
import { deriveCases, type OperationCoverage } from './cases.js';
import { OWN_LIST_EXTENSION } from './checks.js';
import { Credentials, type GivenCredentials } from './credentials.js';
import type { Target } from './known-differences.js';
import type { ListShape } from './list-shape.js';
import { runPhases, writeRole } from './phases/index.js';
import { unreachableReason } from './reachability.js';
import type { CaseResult, OperationSummary, SuiteReport } from './result.js';
import { type Rules, rulesOf } from './rules.js';
import type { RunContext } from './run-context.js';
import { runFieldValues } from './runners/field-values.js';
import { runSingle } from './runners/single.js';
import { runWalk } from './runners/walk.js';
import { SchemaValues } from './values/schema-values.js';

export type * from './result.js';

export interface SuiteOptions {
  /** Root of the API, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A valid credential for every security scheme that has none of its own in `credentials`: an API key, or a session token for a cookie-authenticated API (the account API). */
  token?: string;
  /** Valid credentials by security scheme name (`--credential`): a bearer token, `user:password` for HTTP Basic, an API key's value. */
  credentials?: Record<string, string>;
  /** Credentials the API must refuse with 401 (`--refused-credential`: a revoked or expired key). */
  refusedCredentials?: GivenCredentials['refused'];
  /**
   * A spec from elsewhere (`--spec`), read by `readSpecSource`: its schemas are compiled without
   * Ajv's strict mode, its unknown formats accepted, its operations without operationId named
   * `METHOD path`. Absent for this project's own specs, which are held to strict mode.
   */
  foreign?: { unknownFormats: string[]; notes: string[]; openapi: string };
  /** The conventions to check; default: those the spec's `x-contract-suite` turns on. */
  rules?: Rules;
  /** An answer slower than this is a finding. */
  maxResponseTimeMs?: number;
  /** Which known differences apply. Default `implementation`: none. */
  target?: Target;
  /** Default: the contract named by `redocly.yaml`. */
  spec?: OpenApiDocument;
  fetch?: typeof globalThis.fetch;
  /** Per request. Default 10 000. */
  timeoutMs?: number;
  /** Most pages a pagination walk reads. Default 10. */
  maxPages?: number;
  /**
   * Also send the positive cases of operations that may write (an unsafe method
   * the spec does not mark `x-read-only`). Only for a disposable deployment. Default false.
   */
  allowWrites?: boolean;
  /** Valid and invalid requests the property phase generates per operation (`phases/property.ts`). Default 0: no property phase. */
  examples?: number;
  /** The property phase's seed; default a random one, shown in the report's hints so the run can be repeated. */
  seed?: number;
  /** Run the stateful phase (OpenAPI links; create → read → update → delete → read). Default false. */
  stateful?: boolean;
  /**
   * The target keeps no state (a mock): the stateful phase does not expect what a write made to be
   * readable afterwards, nor gone after a delete. Default: true for `target: 'prism'`.
   */
  stateless?: boolean;
  /** A credential of another user who shares nothing with the caller: sees none of the caller's resources. */
  otherToken?: string;
  /** Called before each case. */
  onProgress?: (progress: { index: number; total: number; entry: SuiteCase }) => void;
}

/**
 * Runs every case derived from the spec against one API and reports each, per
 * operation. One request at a time. Positive cases of operations that may write
 * are skipped unless `allowWrites`, so by default it is safe against a live
 * service. An operation that ends with no case run fails the run by name.
 */
export async function runContractSuite(options: SuiteOptions): Promise<SuiteReport> {
  const started = Date.now();
  const spec = options.spec ?? loadSpec();
  const foreign = options.foreign;
  const ajv: Options = foreign
    ? { strict: false, validateSchema: false, unicodeRegExp: false, formats: Object.fromEntries(foreign.unknownFormats.map((format) => [format, true])) }
    : {};
  const checker = new ResponseChecker(spec, { ajv, read: { nameless: foreign ? 'method-path' : 'throw' } });
  const target = options.target ?? 'implementation';
  const rules = options.rules ?? rulesOf(spec);
  const credentials = new Credentials(spec, {
    ...(options.token !== undefined && { token: options.token }),
    ...(options.credentials && { byScheme: options.credentials }),
    ...(options.refusedCredentials && { refused: options.refusedCredentials }),
  });
  const derivation = deriveCases(spec, checker.operations, { allowWrites: options.allowWrites ?? false, rules, credentials, ajv });
  const { coverage, facts } = derivation;
  // With the stateful phase, writes are sent there, once each and in an order that keeps the run's credential alive.
  const writesInPhase = (options.allowWrites ?? false) && (options.stateful ?? false);
  const cases = writesInPhase
    ? derivation.cases.map((entry) =>
        entry.polarity === 'positive' && entry.skip === undefined && writeRole(spec, entry.operation) !== undefined
          ? { ...entry, skip: 'sent by the stateful phase instead, once, in the safe order of writes (src/contract-suite/phases/write-order.ts)' }
          : entry,
      )
    : derivation.cases;
  const lists = new Map<string, ListShape>();
  for (const entry of facts) if (entry.list) lists.set(entry.operation.operationId, entry.list);
  const context: RunContext = {
    spec,
    transport: { baseUrl: options.baseUrl, credentials, fetch: options.fetch ?? globalThis.fetch, timeoutMs: options.timeoutMs ?? 10_000 },
    checks: {
      checker,
      spec,
      apiWide: new ApiWideAnswers(spec, ajv),
      lists,
      ownLists: ownListsOf(spec, checker.operations),
      credentials,
      rules,
      ...(options.maxResponseTimeMs !== undefined && { maxResponseTimeMs: options.maxResponseTimeMs }),
    },
    target,
    rules,
    secrets: credentials.secrets(),
    maxPages: options.maxPages ?? 10,
    facts: new Map(facts.map((entry) => [entry.operation.operationId, entry])),
    harvest: new Map(),
    sawPrism: false,
  };
  const results: CaseResult[] = [];
  // Asked before any case: whichever case would run first (or a phase, when every case is skipped), a dead URL is one reason.
  // A spec with no operation needs no server: that it checks nothing is the one thing to say.
  const unreachable = coverage.length === 0 ? undefined : await unreachableReason(context.transport);
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const examples = options.examples ?? 0;
  if (unreachable === undefined) {
    for (const [index, entry] of cases.entries()) {
      options.onProgress?.({ index, total: cases.length, entry });
      results.push(await runCase(context, entry));
    }
    const phaseOptions = {
      examples,
      seed,
      allowWrites: options.allowWrites ?? false,
      stateful: options.stateful ?? false,
      // A mock keeps nothing: what a write made is not there to read back (Prism), so the sequences expect no state.
      stateless: options.stateless ?? target === 'prism',
      ...(options.otherToken !== undefined && { otherToken: options.otherToken }),
    };
    results.push(...(await runPhases({ run: context, facts, values: new SchemaValues(spec), options: phaseOptions })));
    results.push(...uncovered(coverage, results));
  }
  const nothingChecked = unreachable === undefined ? whyNothingChecked(coverage, results) : undefined;
  const info = isObject(spec['info']) ? spec['info'] : {};
  return {
    baseUrl: options.baseUrl,
    target,
    spec: {
      title: String(info['title'] ?? ''),
      version: String(info['version'] ?? ''),
      openapi: String(spec['openapi'] ?? ''),
      rules: [...rules].sort(),
    },
    ...(foreign && foreign.notes.length > 0 && { specNotes: foreign.notes }),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    summary: {
      checks: results.length,
      passed: results.filter((result) => result.outcome === 'pass').length,
      failed: results.filter((result) => result.outcome === 'fail').length,
      skipped: results.filter((result) => result.outcome === 'skip').length,
      passedWithKnownDifferences: results.filter((result) => result.outcome === 'pass' && result.excused.length > 0).length,
      requests: results.reduce((sum, result) => sum + result.requests, 0),
    },
    operations: coverage.map((entry) => summarise(entry, results)),
    differencesApplied: [...new Set(results.flatMap((result) => result.excused.map((finding) => finding.difference)))],
    ...(unreachable !== undefined && { unreachable }),
    ...(nothingChecked !== undefined && { nothingChecked }),
    hints: [
      ...(context.sawPrism && target !== 'prism'
        ? ["The answers carry Prism's sl-violations header: this looks like the Prism mock. Run with --target prism to allow its known differences."]
        : []),
      ...(examples > 0 && unreachable === undefined ? [`The property phase ran with seed ${seed}: --seed ${seed} sends the same requests again.`] : []),
    ],
    results,
  };
}

/**
 * Why the run checked nothing at all (no operation, or every case and phase skipped), or undefined
 * when at least one check ran: a run that checked nothing must not pass as if all were well.
 */
function whyNothingChecked(coverage: OperationCoverage[], results: CaseResult[]): string | undefined {
  if (coverage.length === 0) return 'the spec declares no operation (its paths are empty)';
  if (results.some((result) => result.outcome !== 'skip' && result.family !== 'coverage')) return undefined;
  const reasons = [...new Set(results.flatMap((result) => (result.outcome === 'skip' && result.note !== undefined ? [result.note] : [])))];
  const shown = reasons.slice(0, 3).join('; ');
  return `every case of its ${coverage.length} operation${coverage.length === 1 ? '' : 's'} was skipped${shown ? ` (${shown}${reasons.length > 3 ? `; and ${reasons.length - 3} more reasons` : ''})` : ''}`;
}

/** The owner property of each operation the spec marks `x-own-list` (the caller's own list), by operationId. */
function ownListsOf(spec: OpenApiDocument, operations: readonly OperationContract[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const operation of operations) {
    const raw = deref(spec, deref(spec, spec.paths[operation.path])[operation.method.toLowerCase()]);
    const owner = raw[OWN_LIST_EXTENSION];
    if (typeof owner === 'string' && owner !== '') found.set(operation.operationId, owner);
  }
  return found;
}

function runCase(context: RunContext, entry: SuiteCase): Promise<CaseResult> {
  if (entry.skip !== undefined) return Promise.resolve(skipped(entry, entry.skip));
  if (entry.walk) return runWalk(context, entry);
  if (entry.variants) return runFieldValues(context, entry);
  return runSingle(context, entry);
}

function skipped(entry: SuiteCase, note: string): CaseResult {
  const { operation } = entry;
  return {
    id: entry.id,
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    polarity: entry.polarity,
    family: entry.family,
    location: entry.location,
    title: entry.title,
    outcome: 'skip',
    expectedStatus: entry.expectedStatus,
    findings: [],
    excused: [],
    note,
    requests: 0,
  };
}

/**
 * A failing result for each operation that no case checked (none derived, or
 * all skipped): the run must not pass while an operation goes unchecked, as it
 * did when the suite only knew list operations.
 */
function uncovered(coverage: OperationCoverage[], results: CaseResult[]): CaseResult[] {
  return coverage
    .filter(({ operation }) => !results.some((result) => result.operationId === operation.operationId && result.outcome !== 'skip'))
    .map(({ operation, notes }) => {
      const own = results.filter((result) => result.operationId === operation.operationId);
      const reasons = [...new Set(own.map((result) => result.note).filter((note): note is string => note !== undefined))];
      const skipped = own.length > 0 ? `all ${own.length} of its cases were skipped (${reasons.join('; ')})` : 'no case could be derived';
      const why = [skipped, ...notes].join('; ');
      return {
        id: `${operation.operationId} coverage`,
        operationId: operation.operationId,
        method: operation.method,
        path: operation.path,
        polarity: 'coverage',
        family: 'coverage',
        location: 'path',
        title: 'at least one case checks this operation',
        outcome: 'fail',
        expectedStatus: 0,
        findings: [{ category: 'coverage', message: `${operation.operationId} (${operation.method} ${operation.path}) was not checked at all: ${why}` }],
        excused: [],
        requests: 0,
      };
    });
}

function summarise({ operation, notes, notProvoked }: OperationCoverage, results: CaseResult[]): OperationSummary {
  const own = results.filter((result) => result.operationId === operation.operationId && result.family !== 'coverage');
  return {
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    cases: own.length,
    passed: own.filter((result) => result.outcome === 'pass').length,
    failed: own.filter((result) => result.outcome === 'fail').length,
    skipped: own.filter((result) => result.outcome === 'skip').length,
    notes,
    notProvoked,
  };
}

/**
 * Cases the two reports answer with different statuses, unless a known
 * difference excused the status finding of that case. Empty when they agree.
 */
export function disagreements(a: SuiteReport, b: SuiteReport): string[] {
  const byId = new Map(b.results.map((result) => [result.id, result]));
  const found: string[] = [];
  for (const left of a.results) {
    const right = byId.get(left.id);
    if (!right) {
      found.push(`${left.id}: only in the run against ${a.baseUrl}`);
      continue;
    }
    byId.delete(left.id);
    if (left.outcome === 'skip' || right.outcome === 'skip') continue;
    if (left.status === right.status) continue;
    // A refusal the spec leaves to any 4xx: two different 4xx, each accepted by the case, are both right.
    if (left.anyClientError && left.outcome === 'pass' && right.outcome === 'pass') continue;
    const excused = [...left.excused, ...right.excused].some((finding) => finding.category === 'status');
    if (!excused) found.push(`${left.id}: ${a.target} answered ${left.status ?? 'nothing'}, ${b.target} answered ${right.status ?? 'nothing'}`);
  }
  for (const id of byId.keys()) found.push(`${id}: only in the run against ${b.baseUrl}`);
  return found;
}

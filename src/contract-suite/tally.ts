import { isJsonMediaType } from '../contract/media-types.js';
import type { OperationContract } from '../contract/operations.js';
import type { RequestInput, RequestOverrides, SuiteCase } from './case.js';
import { type Category, type Finding, parseJson, resourceOf } from './checks.js';
import { buildRequest, type Exchange, redactRequest, send, toCurl } from './http.js';
import { excusesFor } from './known-differences.js';
import { rememberOwned } from './owned.js';
import type { CaseResult, ExcusedFinding } from './result.js';
import type { RunContext } from './run-context.js';
import { harvest } from './values/schema-refs.js';

/**
 * Sends the requests of one case and turns its exchanges and findings into its
 * result. A request the case already sent is answered from memory (a live
 * cursor's first page may be the very request a comparison needs), and every
 * successful answer feeds the run's harvest of ids.
 */
export class Tally {
  readonly #context: RunContext;
  readonly #entry: SuiteCase;
  readonly #sent = new Map<string, Exchange>();
  #requests = 0;
  #findings: Finding[] = [];
  #excused: ExcusedFinding[] = [];
  #notes = new Set<string>();
  #subject: Exchange | undefined;
  #offending: Exchange | undefined;

  readonly #remember: boolean;

  /** `remember: false` sends every request, even one sent before: a sequence reads the same resource again after writing it. */
  constructor(context: RunContext, entry: SuiteCase, options: { remember?: boolean } = {}) {
    this.#context = context;
    this.#entry = entry;
    this.#remember = options.remember ?? true;
  }

  /**
   * Sends the case's request for `input`; `overrides` replace the case's own, and `operation` sends
   * another operation's request (a phase varies them per request, or follows a sequence of operations).
   */
  async send(
    input: RequestInput,
    overrides: RequestOverrides = this.#entry.overrides,
    operation: OperationContract = this.#entry.operation,
  ): Promise<Exchange> {
    const request = buildRequest(this.#context.transport, { operation, overrides }, input);
    const key = JSON.stringify(request);
    const known = this.#remember ? this.#sent.get(key) : undefined;
    if (known) return known;
    this.#requests++;
    const exchange = await send(this.#context.transport, request);
    this.#sent.set(key, exchange);
    if (exchange.response?.headers.has('sl-violations')) this.#context.sawPrism = true;
    const status = exchange.response?.status ?? 0;
    if (request.method === 'DELETE' && status >= 200 && status < 300) {
      const deleted = this.#context.checks.deleted ?? new Set<string>();
      deleted.add(resourceOf(request.url));
      this.#context.checks.deleted = deleted;
    }
    this.#harvest(exchange, operation);
    return exchange;
  }

  /** Sorts findings into failing and excused; true when something failed. */
  record(exchange: Exchange, findings: Finding[]): boolean {
    this.#subject = exchange;
    let failed = false;
    for (const finding of findings) {
      if (finding.category === 'note') {
        this.#notes.add(finding.message);
        continue;
      }
      const difference = excusesFor(this.#context.target, this.#entry, finding.category as Category);
      if (difference) this.#excused.push({ ...finding, difference: difference.id });
      else {
        this.#findings.push(finding);
        failed = true;
      }
    }
    if (failed && !this.#offending) this.#offending = exchange;
    return failed;
  }

  finish(exchange: Exchange, findings: Finding[]): CaseResult {
    this.record(exchange, findings);
    return this.result();
  }

  skip(exchange: Exchange | undefined, note: string): CaseResult {
    if (exchange) this.#subject = exchange;
    return { ...this.result(note), outcome: 'skip' };
  }

  result(note?: string): CaseResult {
    const entry = this.#entry;
    const exchange = this.#offending ?? this.#subject;
    const secrets = this.#context.secrets;
    const notes = [note, ...this.#notes].filter((text): text is string => text !== undefined);
    return {
      id: entry.id,
      operationId: entry.operation.operationId,
      method: entry.operation.method,
      path: entry.operation.path,
      polarity: entry.polarity,
      family: entry.family,
      location: entry.location,
      title: entry.title,
      outcome: this.#findings.length > 0 ? 'fail' : 'pass',
      expectedStatus: entry.expectedStatus,
      ...(entry.anyClientError && { anyClientError: true }),
      ...(exchange?.response && { status: exchange.response.status }),
      findings: this.#findings,
      excused: this.#excused,
      ...(notes.length > 0 && { note: notes.join('; ') }),
      ...(exchange && { request: redactRequest(exchange.request, secrets), curl: toCurl(exchange.request, secrets) }),
      ...(exchange?.elapsedMs !== undefined && { elapsedMs: exchange.elapsedMs }),
      ...(this.#findings.length > 0 && exchange?.response && { responseExcerpt: excerptOf(exchange.response.body) }),
      requests: this.#requests,
    };
  }

  #harvest(exchange: Exchange, operation: OperationContract): void {
    const response = exchange.response;
    if (!response || response.status < 200 || response.status >= 300 || this.#entry.apiWide) return;
    const documented = operation.responses[String(response.status)];
    const media = Object.entries(documented?.content ?? {}).find(([type]) => isJsonMediaType(type));
    const schema = media?.[1].schema;
    const body = parseJson(response.body);
    if (schema !== undefined && body !== undefined) harvest(this.#context.spec, schema, body, this.#context.harvest);
    rememberOwned(this.#context.spec, operation.method, operation.path, body, this.#context.harvest);
  }
}

function excerptOf(body: string): string {
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

import { ResponseChecker } from '../contract/response-checker.js';
import { isObject, loadSpec, type Json, type OpenApiDocument } from '../contract/spec.js';
import { deriveCases, listShape, type Family, type ListOptions, type ListShape, type Location, type Polarity, type SuiteCase } from './cases.js';
import { checkExchange, describeItem, effectiveSort, orderBreak, parseJson, type Category, type Finding } from './checks.js';
import { buildRequest, redactRequest, send, toCurl, type Exchange, type SentRequest, type Transport } from './http.js';
import { excusesFor, type Target } from './known-differences.js';

export interface SuiteOptions {
  /** Root of the API, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A valid API key for that API. */
  token: string;
  /** Which known differences apply. Default `implementation`: none. */
  target?: Target;
  /** Default: the contract named by `redocly.yaml`. */
  spec?: OpenApiDocument;
  fetch?: typeof globalThis.fetch;
  /** Per request. Default 10 000. */
  timeoutMs?: number;
  /** Most pages a pagination walk reads. Default 10. */
  maxPages?: number;
  /** Called before each case. */
  onProgress?: (progress: { index: number; total: number; entry: SuiteCase }) => void;
}

export type Outcome = 'pass' | 'fail' | 'skip';

export interface ExcusedFinding extends Finding {
  /** Id of the known difference that excuses it. */
  difference: string;
}

export interface CaseResult {
  id: string;
  operationId: string;
  method: string;
  path: string;
  polarity: Polarity;
  family: Family;
  location: Location;
  title: string;
  outcome: Outcome;
  expectedStatus: number;
  /** Status of the answer the result is about (the offending one when it failed). */
  status?: number;
  /** What is wrong; empty when the case passed. */
  findings: Finding[];
  /** What differs but is listed in known-differences.ts for this target. */
  excused: ExcusedFinding[];
  /** Why it was skipped, or what a walk covered. */
  note?: string;
  /** The request the result is about (the offending one when it failed), with the key redacted. */
  request?: SentRequest;
  curl?: string;
  /** The start of the offending answer's body, when the case failed. */
  responseExcerpt?: string;
  requests: number;
}

export interface SuiteReport {
  baseUrl: string;
  target: Target;
  spec: { title: string; version: string };
  startedAt: string;
  durationMs: number;
  summary: { checks: number; passed: number; failed: number; skipped: number; passedWithKnownDifferences: number; requests: number };
  /** Ids of the known differences that excused at least one finding. */
  differencesApplied: string[];
  /** Set when the first request got no answer at all; nothing else was sent. */
  unreachable?: string;
  /** Advice about the run itself (e.g. the target looks like the mock). */
  hints: string[];
  results: CaseResult[];
}

interface Context {
  transport: Transport;
  checker: ResponseChecker;
  target: Target;
  maxPages: number;
  shapes: Map<string, ListShape>;
  /** Prism marks the answers to requests it found invalid with an `sl-violations` header. */
  sawPrism: boolean;
}

/**
 * Runs every case derived from the spec against one API and reports each.
 * Sends only the list operations, one request at a time, so it is safe against a
 * live service (about 90 requests for the current spec).
 */
export async function runContractSuite(options: SuiteOptions): Promise<SuiteReport> {
  const started = Date.now();
  const spec = options.spec ?? loadSpec();
  const checker = new ResponseChecker(spec);
  const target = options.target ?? 'implementation';
  const shapes = new Map<string, ListShape>();
  for (const operation of checker.operations) {
    const shape = listShape(spec, operation);
    if (shape) shapes.set(operation.operationId, shape);
  }
  const context: Context = {
    transport: { baseUrl: options.baseUrl, token: options.token, fetch: options.fetch ?? globalThis.fetch, timeoutMs: options.timeoutMs ?? 10_000 },
    checker,
    target,
    maxPages: options.maxPages ?? 10,
    shapes,
    sawPrism: false,
  };
  const cases = deriveCases(spec, checker.operations);
  const results: CaseResult[] = [];
  let unreachable: string | undefined;
  for (const [index, entry] of cases.entries()) {
    options.onProgress?.({ index, total: cases.length, entry });
    const result = entry.walk ? await runWalk(context, entry) : await runSingle(context, entry);
    if (index === 0 && result.status === undefined && result.findings.some((finding) => finding.category === 'transport')) {
      unreachable = result.findings[0]?.message ?? 'no answer';
      results.push(result);
      break;
    }
    results.push(result);
  }
  const info = isObject(spec['info']) ? spec['info'] : {};
  return {
    baseUrl: options.baseUrl,
    target,
    spec: { title: String(info['title'] ?? ''), version: String(info['version'] ?? '') },
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
    differencesApplied: [...new Set(results.flatMap((result) => result.excused.map((finding) => finding.difference)))],
    ...(unreachable !== undefined && { unreachable }),
    hints:
      context.sawPrism && target !== 'prism'
        ? ['The answers carry Prism\'s sl-violations header: this looks like the Prism mock. Run with --target prism to allow its known differences.']
        : [],
    results,
  };
}

async function runSingle(context: Context, entry: SuiteCase): Promise<CaseResult> {
  const list = shapeOf(context, entry);
  const tally = new Tally(context, entry);
  let options = entry.options;
  if (entry.liveCursor) {
    // A cursor is only valid for the caller and sort that made it (the spec says so), so the
    // example's cursor is replaced by one from the first page of the same request.
    const { cursor: _, ...rest } = options;
    const first = { ...rest, limit: list.minLimit };
    const exchange = await tally.send(first);
    const findings = checkExchange(context.checker, entry, list, exchange, first).map((finding) => ({ ...finding, message: `first page (for a live cursor): ${finding.message}` }));
    const page = pageOf(exchange);
    if (!page) return tally.finish(exchange, findings);
    if (tally.record(exchange, findings)) return tally.result();
    if (page.nextCursor === null) return tally.skip(exchange, 'the list fits in one page, so there is no live cursor to send');
    options = { ...options, cursor: page.nextCursor };
  }
  const exchange = await tally.send(options);
  return tally.finish(exchange, checkExchange(context.checker, entry, list, exchange, options));
}

async function runWalk(context: Context, entry: SuiteCase): Promise<CaseResult> {
  const list = shapeOf(context, entry);
  const tally = new Tally(context, entry);
  const limit = entry.walk?.limit ?? list.minLimit;
  const sort = effectiveSort(entry.options, list);
  const items: Json[] = [];
  const pageOfId = new Map<string, number>();
  const cursors = new Map<string, number>();
  let cursor: string | undefined;
  let complete = false;
  let stop: string | undefined;
  let pages = 0;
  while (pages < context.maxPages) {
    const options: ListOptions = cursor === undefined ? { ...entry.options } : { ...entry.options, cursor };
    const exchange = await tally.send(options);
    pages++;
    const findings = checkExchange(context.checker, entry, list, exchange, options).map((finding) => ({ ...finding, message: `page ${pages}: ${finding.message}` }));
    const page = pageOf(exchange);
    if (!page) return tally.finish(exchange, findings);
    const previous = items.at(-1);
    const first = page.items[0];
    if (previous !== undefined && first !== undefined) {
      const broken = orderBreak([previous, first], sort, items.length - 1);
      if (broken) findings.push({ category: 'semantics', message: `page ${pages} does not continue page ${pages - 1}: ${broken}` });
    }
    for (const item of page.items) {
      const id = idOf(item);
      const seenOn = pageOfId.get(id);
      if (seenOn !== undefined) findings.push({ category: 'semantics', message: `item ${describeItem(item)} is on page ${seenOn} and again on page ${pages}` });
      else pageOfId.set(id, pages);
      items.push(item);
    }
    if (page.nextCursor === null) complete = true;
    else if (cursors.has(page.nextCursor)) {
      findings.push({ category: 'semantics', message: `page ${pages} returned the nextCursor of page ${cursors.get(page.nextCursor)} again, so the walk would never end` });
    }
    tally.record(exchange, findings);
    if (complete) break;
    if (findings.length > 0) {
      stop = 'stopped at the first page with a finding';
      break;
    }
    cursors.set(page.nextCursor as string, pages);
    cursor = page.nextCursor as string;
  }
  const walked = `walked ${pages} page${pages === 1 ? '' : 's'} of limit ${limit}, ${items.length} items`;
  if (!complete) return tally.result(`${walked}; ${stop ?? `stopped at --max-pages ${context.maxPages} before the last page`}`);
  if (items.length < list.maxLimit) {
    // The pages together must be exactly the list one big page gives.
    const options: ListOptions = { ...entry.options, limit: list.maxLimit };
    const exchange = await tally.send(options);
    const findings = checkExchange(context.checker, entry, list, exchange, options);
    const whole = pageOf(exchange);
    let same = false;
    if (whole) {
      const walkedIds = items.map(idOf);
      const wholeIds = whole.items.map(idOf);
      same = walkedIds.join() === wholeIds.join();
      if (!same) {
        findings.push({
          category: 'semantics',
          message: `the pages together (${walkedIds.length} items: ${summarise(walkedIds)}) differ from one page of limit ${list.maxLimit} (${wholeIds.length} items: ${summarise(wholeIds)})`,
        });
      }
    }
    tally.record(exchange, findings);
    return tally.result(`${walked}; ${same ? 'the same as' : 'compared with'} one page of limit ${list.maxLimit}`);
  }
  return tally.result(walked);
}

/** Collects the exchanges and findings of one case and turns them into its result. */
class Tally {
  readonly #context: Context;
  readonly #entry: SuiteCase;
  #requests = 0;
  #findings: Finding[] = [];
  #excused: ExcusedFinding[] = [];
  #subject: Exchange | undefined;
  #offending: Exchange | undefined;

  constructor(context: Context, entry: SuiteCase) {
    this.#context = context;
    this.#entry = entry;
  }

  get failed(): boolean {
    return this.#findings.length > 0;
  }

  async send(options: ListOptions): Promise<Exchange> {
    this.#requests++;
    const exchange = await send(this.#context.transport, buildRequest(this.#context.transport, this.#entry, options));
    if (exchange.response?.headers.has('sl-violations')) this.#context.sawPrism = true;
    return exchange;
  }

  /** Sorts findings into failing and excused; true when something failed. */
  record(exchange: Exchange, findings: Finding[]): boolean {
    this.#subject = exchange;
    let failed = false;
    for (const finding of findings) {
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

  skip(exchange: Exchange, note: string): CaseResult {
    this.#subject = exchange;
    return { ...this.result(note), outcome: 'skip' };
  }

  result(note?: string): CaseResult {
    const entry = this.#entry;
    const exchange = this.#offending ?? this.#subject;
    const token = this.#context.transport.token;
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
      ...(exchange?.response && { status: exchange.response.status }),
      findings: this.#findings,
      excused: this.#excused,
      ...(note !== undefined && { note }),
      ...(exchange && { request: redactRequest(exchange.request, token), curl: toCurl(exchange.request, token) }),
      ...(this.#findings.length > 0 && exchange?.response && { responseExcerpt: excerptOf(exchange.response.body) }),
      requests: this.#requests,
    };
  }
}

function shapeOf(context: Context, entry: SuiteCase): ListShape {
  const shape = context.shapes.get(entry.operation.operationId);
  if (!shape) throw new Error(`no list options for ${entry.operation.operationId}`);
  return shape;
}

function pageOf(exchange: Exchange): { items: Json[]; nextCursor: string | null } | undefined {
  if (exchange.response?.status !== 200) return undefined;
  const body = parseJson(exchange.response.body);
  if (!isObject(body) || !Array.isArray(body['items'])) return undefined;
  const next = body['nextCursor'];
  return { items: body['items'], nextCursor: typeof next === 'string' ? next : null };
}

function excerptOf(body: string): string {
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

function idOf(item: Json): string {
  return isObject(item) ? String(item['id']) : JSON.stringify(item);
}

function summarise(ids: string[]): string {
  return ids.length <= 6 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')}, …, ${ids.slice(-2).join(', ')}`;
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
    const excused = [...left.excused, ...right.excused].some((finding) => finding.category === 'status');
    if (!excused) found.push(`${left.id}: ${a.target} answered ${left.status ?? 'nothing'}, ${b.target} answered ${right.status ?? 'nothing'}`);
  }
  for (const id of byId.keys()) found.push(`${id}: only in the run against ${b.baseUrl}`);
  return found;
}

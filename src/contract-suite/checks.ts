import type { OperationContract } from '../contract/operations.js';
import type { ObservedResponse, ResponseChecker } from '../contract/response-checker.js';
import { isObject, type Json, type OpenApiDocument } from '../contract/spec.js';
import type { ApiWideAnswers } from './api-wide-answers.js';
import type { RequestInput, SuiteCase } from './case.js';
import type { Credentials } from './credentials.js';
import type { Exchange } from './http.js';
import type { ListShape } from './list-shape.js';
import { itemsOf } from './owned.js';
import type { Rules } from './rules.js';
import { writeOnlyReturned } from './write-only.js';

/** The options of a list request: the POST body, or the GET query read as an object. */
export type ListOptions = Record<string, Json>;

/** What the checks compare an answer with. */
export interface CheckContext {
  checker: ResponseChecker;
  /** The spec: an answer is walked with its schema for properties marked `writeOnly` (`write-only.ts`); without it that check is not made. */
  spec?: OpenApiDocument;
  apiWide: ApiWideAnswers;
  /** The list shape of each list operation, by operationId. */
  lists: Map<string, ListShape>;
  /** The run's credentials: a 401 from an operation under a bearer scheme owes a Bearer challenge. */
  credentials: Credentials;
  /** The conventions the spec turns on (`rules.ts`). */
  rules: Rules;
  /** `--max-response-time`: an answer slower than this is a finding. */
  maxResponseTimeMs?: number;
  /**
   * Lists the spec marks as the caller's own (`x-own-list: <owner property>` on the operation), by operationId:
   * every item of one answer has the same owner.
   */
  ownLists?: Map<string, string>;
  /** URLs a DELETE was accepted for in this run: deleting one again may get a documented 404 or 410. */
  deleted?: Set<string>;
}

/**
 * The kinds of finding. A known difference excuses findings by category, so the
 * categories are coarse on purpose:
 * - `transport`: no answer at all;
 * - `status`: a positive case was not accepted, or a negative one not rejected with the status the contract names;
 * - `contract`: what Schemathesis checks (documented status, content type, body schema, required headers, no 5xx);
 * - `problem`: the Problem body does not describe this answer (status, type, request id, the violation in `errors`);
 * - `semantics`: the answer does not do what was asked (order, page size, pagination, a field that has no effect);
 * - `time`: an answer slower than `--max-response-time`;
 * - `coverage`: an operation of the spec that no case checked;
 * - `note`: not a violation, something the check could not check (a body of a media type read by its content type only).
 */
export type Category = 'transport' | 'status' | 'contract' | 'problem' | 'semantics' | 'time' | 'coverage' | 'note';

export interface Finding {
  category: Category;
  message: string;
}

/** The Problem `type`s each status may carry, read from the spec's response examples. */
export type ProblemTypes = Map<string, Set<string>>;

export function problemTypesOf(operation: OperationContract): ProblemTypes {
  const types: ProblemTypes = new Map();
  for (const [status, response] of Object.entries(operation.responses)) {
    for (const media of Object.values(response.content)) {
      for (const example of Object.values(media.examples)) {
        if (isObject(example) && typeof example['type'] === 'string') {
          const set = types.get(status) ?? new Set<string>();
          set.add(example['type']);
          types.set(status, set);
        }
      }
    }
  }
  return types;
}

/** Everything wrong with one answer to one case. */
export function checkExchange(context: CheckContext, entry: SuiteCase, exchange: Exchange, input: RequestInput = entry.input): Finding[] {
  const { response } = exchange;
  if (!response) return [{ category: 'transport', message: `no answer: ${exchange.failure ?? 'unknown failure'}` }];
  const shape = entry.apiWide
    ? { violations: context.apiWide.check(entry.operation, response), notes: [] }
    : context.checker.inspect(entry.operation.operationId, response);
  // An endpoint documented to answer only a server error (a test API's `/status/500`) is asked for it on purpose.
  const asked = response.status >= 500 && response.status === entry.expectedStatus ? `server error ${response.status}` : undefined;
  const findings: Finding[] = [
    ...shape.violations.filter((message) => message !== asked).map((message): Finding => ({ category: 'contract', message })),
    ...shape.notes.map((message): Finding => ({ category: 'note', message })),
  ];
  const { rules } = context;
  if (context.maxResponseTimeMs !== undefined && exchange.elapsedMs !== undefined && exchange.elapsedMs > context.maxResponseTimeMs)
    findings.push({ category: 'time', message: `answered in ${exchange.elapsedMs} ms, over --max-response-time ${context.maxResponseTimeMs} ms` });

  if (rules.has('auth-challenge') && response.status === 401 && !findings.some((finding) => finding.message.includes('WWW-Authenticate'))) {
    const challenge = response.headers.get('www-authenticate');
    // A bearer-token API owes the RFC 6750 challenge; any other scheme (a session cookie) at least a challenge (RFC 9110 §11.6.1), whose form its spec's header schema checks.
    const bearer = context.credentials.requirementOf(entry.operation)?.schemes[0]?.kind === 'bearer';
    if (!challenge || (bearer && !/^Bearer( |$)/.test(challenge))) {
      findings.push({
        category: 'contract',
        message: bearer
          ? `401 without a bearer challenge in WWW-Authenticate (RFC 6750 §3), got ${JSON.stringify(challenge)}`
          : '401 without a WWW-Authenticate challenge (RFC 9110 §11.6.1)',
      });
    }
  }
  if (response.status === 405 && entry.allow) {
    // RFC 9110 §15.5.6: a 405 must say which methods the path has.
    const allowed = (response.headers.get('allow') ?? '').split(',').map((method) => method.trim().toUpperCase());
    const missing = entry.allow.filter((method) => !allowed.includes(method));
    if (missing.length > 0)
      findings.push({
        category: 'contract',
        message: `405 whose Allow header (${JSON.stringify(response.headers.get('allow'))}) does not list ${missing.join(', ')}`,
      });
  }

  if (!statusMatches(entry, response.status) && !deletedAgain(context, entry, exchange))
    findings.push({ category: 'status', message: statusMessage(entry, response) });

  const body = parseJson(response.body);
  // What a client sends and the server keeps (a password, a secret) is never shown back.
  if (context.spec && !entry.apiWide)
    for (const message of writeOnlyReturned(context.spec, entry.operation, response.status, response.headers.get('content-type'), body))
      findings.push({ category: 'contract', message });
  if (rules.has('problem-details') && response.status >= 400 && isObject(body) && isProblemResponse(response))
    findings.push(...checkProblem(entry, response, body));
  const owner = context.ownLists?.get(entry.operation.operationId);
  if (owner !== undefined && response.status >= 200 && response.status < 300 && body !== undefined) findings.push(...checkOneOwner(body, owner));
  const list = context.lists.get(entry.operation.operationId);
  if (list && !entry.apiWide && response.status === 200 && isObject(body) && Array.isArray(body['items']))
    findings.push(...checkPage(body['items'], listOptions(input, list), list));
  return findings;
}

/** The spec extension that marks a list as the caller's own, naming the property of an item that holds its owner. */
export const OWN_LIST_EXTENSION = 'x-own-list';

/** A list marked as the caller's own holds items of one owner only: another's item in it is someone else's data shown to the caller. */
function checkOneOwner(body: Json, owner: string): Finding[] {
  const owners = [...new Set(itemsOf(body).flatMap((item) => (isObject(item) && item[owner] !== undefined ? [JSON.stringify(item[owner])] : [])))];
  if (owners.length <= 1) return [];
  return [
    {
      category: 'semantics',
      message: `the caller's own list (${OWN_LIST_EXTENSION}: ${owner}) holds items of ${owners.length} owners (${owners.slice(0, 3).join(', ')}): another user's items are shown to the caller`,
    },
  ];
}

/** Where a list request's options are, read as one object. */
export function listOptions(input: RequestInput, list: ListShape): ListOptions {
  if (list.location === 'query') return input.query;
  return isObject(input.body) ? input.body : {};
}

/** A DELETE of what this run already deleted, answered with a documented 404 or 410: the right answer, not a refusal. */
function deletedAgain(context: CheckContext, entry: SuiteCase, exchange: Exchange): boolean {
  const status = exchange.response?.status ?? 0;
  return (
    exchange.request.method === 'DELETE' &&
    (status === 404 || status === 410) &&
    String(status) in entry.operation.responses &&
    (context.deleted?.has(resourceOf(exchange.request.url)) ?? false)
  );
}

/** The URL without its query: the resource a DELETE is about, whatever options it carries. */
export function resourceOf(url: string): string {
  return url.split('?')[0] ?? url;
}

/**
 * A valid request may get any 2xx (whether it is documented is the contract check's business);
 * invalid input where the spec does not say which status refuses it, any 4xx. Anything else
 * must get exactly the status the case expects.
 */
export function statusMatches(entry: Pick<SuiteCase, 'polarity' | 'expectedStatus' | 'anyClientError'>, status: number): boolean {
  if (entry.anyClientError) return status >= 400 && status < 500;
  if (entry.polarity === 'positive' && entry.expectedStatus >= 200 && entry.expectedStatus < 300) return status >= 200 && status < 300;
  return status === entry.expectedStatus;
}

function statusMessage(entry: SuiteCase, response: ObservedResponse): string {
  const expected = entry.anyClientError
    ? `a 4xx (such as ${entry.expectedStatus})`
    : entry.polarity === 'positive'
      ? `a 2xx (${entry.expectedStatus})`
      : entry.expectedStatus;
  const got = `expected ${expected}, got ${response.status}`;
  if (response.status === 429)
    return `${got}: rate limited (Retry-After: ${response.headers.get('retry-after') ?? 'not sent'}); run the suite again later or with another key`;
  if (entry.polarity === 'positive') return `${got}: a valid request was not accepted`;
  if (response.status < 300) return `${got}: the invalid request was accepted`;
  return `${got}: rejected, but with another status than the contract names`;
}

function checkProblem(entry: SuiteCase, response: ObservedResponse, problem: Record<string, Json>): Finding[] {
  const findings: Finding[] = [];
  const add = (message: string) => findings.push({ category: 'problem', message });
  if (problem['status'] !== response.status) add(`Problem status ${JSON.stringify(problem['status'])} differs from the HTTP status ${response.status}`);
  const allowed = problemTypesOf(entry.operation).get(String(response.status));
  if (allowed && typeof problem['type'] === 'string' && !allowed.has(problem['type'])) {
    add(`Problem type ${JSON.stringify(problem['type'])} is not the one the spec shows for ${response.status} (${[...allowed].join(', ')})`);
  }
  const requestId = response.headers.get('x-request-id');
  if (requestId !== null && typeof problem['requestId'] === 'string' && problem['requestId'] !== requestId) {
    add(`Problem requestId ${JSON.stringify(problem['requestId'])} differs from X-Request-Id ${JSON.stringify(requestId)}`);
  }
  if (entry.violation && response.status === 422) {
    const errors = Array.isArray(problem['errors']) ? problem['errors'].filter(isObject) : [];
    const { in: where, pointer } = entry.violation;
    // Header names are case-insensitive (RFC 9110 §5.1), so a header's pointer may come back in any case.
    const same = (a: Json | undefined) => (where === 'header' ? String(a).toLowerCase() === pointer.toLowerCase() : a === pointer);
    if (!errors.some((error) => error['in'] === where && same(error['pointer']))) {
      const listed = errors.map((error) => `${String(error['in'])} ${String(error['pointer'])}`).join(', ') || 'none';
      add(`errors does not name the offending value (${where} ${pointer}); it lists: ${listed}`);
    }
  }
  return findings;
}

/** Page size and order of one page, for the options that asked for it. */
export function checkPage(items: Json[], options: ListOptions, list: ListShape): Finding[] {
  const findings: Finding[] = [];
  const limit = effectiveLimit(options, list);
  const sort = effectiveSort(options, list);
  if (items.length > limit) findings.push({ category: 'semantics', message: `${items.length} items in a page of limit ${limit}` });
  const broken = orderBreak(items, sort);
  if (broken) findings.push({ category: 'semantics', message: broken });
  return findings;
}

export function effectiveLimit(options: ListOptions, list: ListShape): number {
  const limit = Number(options['limit']);
  return Number.isInteger(limit) ? limit : list.defaultLimit;
}

export function effectiveSort(options: ListOptions, list: ListShape): string {
  const sort = options['sort'];
  return typeof sort === 'string' && list.sortValues.includes(sort) ? sort : list.defaultSort;
}

/** Where a run of items leaves the order `createdAt`, then `id`, in the direction of `sort`; undefined when it holds. */
export function orderBreak(items: Json[], sort: string, offset = 0): string | undefined {
  const direction = sort === 'desc' ? -1 : 1;
  for (let index = 1; index < items.length; index++) {
    const before = items[index - 1];
    const after = items[index];
    if (!isObject(before) || !isObject(after)) continue;
    if (compareItems(before, after) * direction >= 0) {
      return `items out of order for sort=${sort} (createdAt, then id): #${offset + index - 1} ${describeItem(before)} then #${offset + index} ${describeItem(after)}`;
    }
  }
  return undefined;
}

function compareItems(a: Record<string, Json>, b: Record<string, Json>): number {
  const byTime = Date.parse(String(a['createdAt'])) - Date.parse(String(b['createdAt']));
  if (byTime !== 0) return Math.sign(byTime);
  const [x, y] = [String(a['id']), String(b['id'])];
  return x < y ? -1 : x > y ? 1 : 0;
}

export function describeItem(item: Json): string {
  return isObject(item) ? `${String(item['id'])} (${String(item['createdAt'])})` : JSON.stringify(item);
}

function isProblemResponse(response: ObservedResponse): boolean {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() === 'application/problem+json';
}

export function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

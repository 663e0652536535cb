import { isObject, type Json } from '../../contract/spec.js';
import { type RequestInput, type SuiteCase, withField } from '../case.js';
import { checkExchange, describeItem, effectiveSort, listOptions, orderBreak, parseJson } from '../checks.js';
import type { Exchange } from '../http.js';
import { resolveLive } from '../live-values.js';
import type { CaseResult } from '../result.js';
import type { RunContext } from '../run-context.js';
import { Tally } from '../tally.js';

/**
 * Follows `nextCursor` from the first page to the last (up to `maxPages`):
 * each page continues the order of the one before, no item appears twice, no
 * cursor repeats; then the pages together must be exactly one big page.
 */
export async function runWalk(context: RunContext, entry: SuiteCase): Promise<CaseResult> {
  const list = context.checks.lists.get(entry.operation.operationId);
  const tally = new Tally(context, entry);
  if (!list?.cursor) return tally.skip(undefined, 'not a list operation with a cursor');
  const resolved = await resolveLive(context, tally, entry, entry.input);
  if ('result' in resolved) return resolved.result;
  const base = resolved.input;
  const limit = entry.walk?.limit ?? list.minLimit;
  const sort = effectiveSort(listOptions(base, list), list);
  const items: Json[] = [];
  const pageOfId = new Map<string, number>();
  const cursors = new Map<string, number>();
  let cursor: string | undefined;
  let complete = false;
  let stop: string | undefined;
  let pages = 0;
  while (pages < context.maxPages) {
    const input: RequestInput = cursor === undefined ? base : withField(base, list.location, list.cursor, cursor);
    const exchange = await tally.send(input);
    pages++;
    const findings = checkExchange(context.checks, entry, exchange, input).map((finding) => ({ ...finding, message: `page ${pages}: ${finding.message}` }));
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
      findings.push({
        category: 'semantics',
        message: `page ${pages} returned the nextCursor of page ${cursors.get(page.nextCursor)} again, so the walk would never end`,
      });
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
  if (items.length >= list.maxLimit) return tally.result(walked);
  // The pages together must be exactly the list one big page gives.
  const input = withField(base, list.location, 'limit', list.maxLimit);
  const exchange = await tally.send(input);
  const findings = checkExchange(context.checks, entry, exchange, input);
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

function pageOf(exchange: Exchange): { items: Json[]; nextCursor: string | null } | undefined {
  if (exchange.response?.status !== 200) return undefined;
  const body = parseJson(exchange.response.body);
  if (!isObject(body) || !Array.isArray(body['items'])) return undefined;
  const next = body['nextCursor'];
  return { items: body['items'], nextCursor: typeof next === 'string' ? next : null };
}

function idOf(item: Json): string {
  return isObject(item) ? String(item['id']) : JSON.stringify(item);
}

function summarise(ids: string[]): string {
  return ids.length <= 6 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')}, …, ${ids.slice(-2).join(', ')}`;
}

import type { Json } from '../contract/spec.js';
import { type LiveValue, type RequestInput, type SuiteCase, withField } from './case.js';
import { smallPage } from './cases/family.js';
import { checkExchange, parseJson } from './checks.js';
import type { Exchange } from './http.js';
import type { CaseResult } from './result.js';
import type { RunContext } from './run-context.js';
import type { Tally } from './tally.js';
import { type Harvest, harvest } from './values/schema-refs.js';

/** The input with its live values filled in, and which of them came from the spec rather than the API. */
export type Resolved = { input: RequestInput; fromSpec: string[] } | { result: CaseResult };

/**
 * Fills in a case's live values: an id seen in an earlier answer (else the
 * spec's example, noted, so a 404 for it can be told from a bug), or a
 * continuation token from the answer to the same request without it.
 */
export async function resolveLive(context: RunContext, tally: Tally, entry: SuiteCase, input: RequestInput, live: LiveValue[] = entry.live): Promise<Resolved> {
  let next = input;
  const fromSpec: string[] = [];
  for (const value of live) {
    if (value.source === 'seen') {
      const seen = context.harvest.get(value.component)?.[0];
      const chosen = seen ?? value.fallbacks[0];
      if (chosen === undefined) {
        if (entry.polarity === 'positive')
          return { result: tally.skip(undefined, `no ${value.name} to send: none seen in earlier answers, and the spec gives no example`) };
        continue;
      }
      if (seen === undefined) fromSpec.push(value.name);
      next = withField(next, value.location, value.name, chosen);
      continue;
    }
    const token = await continuationToken(context, tally, entry, next, value);
    if ('result' in token) return token;
    next = withField(next, value.location, value.name, token.value);
  }
  return { input: next, fromSpec };
}

/**
 * Asks for the first page (the request without the token, at the smallest page
 * size) and takes the token its answer offers. A token only works for the caller
 * and request that made it (the spec says so of cursors), so it is never reused.
 */
export async function continuationToken(
  context: RunContext,
  tally: Tally,
  entry: SuiteCase,
  input: RequestInput,
  value: LiveValue,
): Promise<{ value: Json; exchange: Exchange } | { result: CaseResult }> {
  const facts = context.facts.get(entry.operation.operationId);
  const first = facts ? smallPage(facts, withField(input, value.location, value.name, undefined)) : withField(input, value.location, value.name, undefined);
  const exchange = await tally.send(first);
  const findings = checkExchange(context.checks, { ...entry, expectedStatus: facts?.success ?? 200 }, exchange, first).map((finding) => ({
    ...finding,
    message: `first page (for a live ${value.name}): ${finding.message}`,
  }));
  if (tally.record(exchange, findings) || !exchange.response || exchange.response.status >= 300) return { result: tally.result() };
  const token = tokenIn(context, entry, exchange, value.component);
  if (token === undefined) return { result: tally.skip(exchange, `the list fits in one page, so there is no live ${value.name} to send`) };
  return { value: token, exchange };
}

/** The value of a component in the operation's own answer (the `nextCursor` of a page). */
export function tokenIn(context: RunContext, entry: SuiteCase, exchange: Exchange, component: string): Json | undefined {
  const response = exchange.response;
  if (!response) return undefined;
  const schema = entry.operation.responses[String(response.status)]?.content['application/json']?.schema;
  const body = parseJson(response.body);
  if (schema === undefined || body === undefined) return undefined;
  const found: Harvest = new Map();
  harvest(context.spec, schema, body, found);
  return found.get(component)?.[0];
}

const NOT_FOUND = 404;

/**
 * A positive case sent with the spec's example id (none seen in earlier answers) and answered 404: the example
 * belongs to the mock's data, not to every deployment, so the answer proves nothing either way; the case is skipped.
 */
export function exampleIdMissing(tally: Tally, entry: SuiteCase, fromSpec: string[], exchange: Exchange): CaseResult | undefined {
  if (entry.polarity !== 'positive' || fromSpec.length === 0 || exchange.response?.status !== NOT_FOUND) return undefined;
  const names = fromSpec.join(', ');
  return tally.skip(exchange, `no ${names} seen in earlier answers, and the spec's example ${names} does not exist here (404)`);
}

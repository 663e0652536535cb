import type { SuiteCase } from '../case.js';
import { checkExchange } from '../checks.js';
import { exampleIdMissing, resolveLive } from '../live-values.js';
import type { CaseResult } from '../result.js';
import type { RunContext } from '../run-context.js';
import { Tally } from '../tally.js';

/** One request (after any live values are fetched), checked against the contract and the status the case expects. */
export async function runSingle(context: RunContext, entry: SuiteCase): Promise<CaseResult> {
  const tally = new Tally(context, entry);
  const resolved = await resolveLive(context, tally, entry, entry.input);
  if ('result' in resolved) return resolved.result;
  const exchange = await tally.send(resolved.input);
  const missing = exampleIdMissing(tally, entry, resolved.fromSpec, exchange);
  if (missing) return missing;
  return tally.finish(exchange, checkExchange(context.checks, entry, exchange, resolved.input));
}

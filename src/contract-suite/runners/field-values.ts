import type { Json } from '../../contract/spec.js';
import { type SuiteCase, withField } from '../case.js';
import { checkExchange } from '../checks.js';
import { judgeEffect, NO_EFFECT_FIX, type VariantAnswer } from '../field-effect.js';
import type { Exchange } from '../http.js';
import { exampleIdMissing, resolveLive, tokenIn } from '../live-values.js';
import type { CaseResult } from '../result.js';
import type { RunContext } from '../run-context.js';
import { Tally } from '../tally.js';

/**
 * Sends the request with the field left out and with each of its values; each
 * must be accepted and honoured (page size, order), and the answers together
 * must show the field has an effect (see `field-effect.ts`).
 */
export async function runFieldValues(context: RunContext, entry: SuiteCase): Promise<CaseResult> {
  const tally = new Tally(context, entry);
  const variants = entry.variants;
  if (!variants) return tally.skip(undefined, 'no values to try');
  const resolved = await resolveLive(context, tally, entry, entry.input);
  if ('result' in resolved) return resolved.result;
  if (resolved.fromSpec.length > 0) {
    // The baseline first (sent once: the tally remembers it), so an example id that does not exist here skips the case.
    const missing = exampleIdMissing(tally, entry, resolved.fromSpec, await tally.send(resolved.input));
    if (missing) return missing;
  }
  const { name, location } = variants;
  const answers: VariantAnswer[] = [];
  /** Each accepted answer's value as the spec reads it: left out is the default, when the schema has one. */
  const meant: string[] = [];
  let last: Exchange | undefined;
  const attempt = async (value: Json | undefined, label: string): Promise<Exchange> => {
    // A path parameter cannot be left out: `undefined` keeps the baseline's value (live, when an answer gave one).
    const input = value === undefined && location === 'path' ? resolved.input : withField(resolved.input, location, name, value);
    const exchange = await tally.send(input);
    const findings = checkExchange(context.checks, entry, exchange, input).map((finding) => ({ ...finding, message: `${label}: ${finding.message}` }));
    tally.record(exchange, findings);
    const status = exchange.response?.status ?? 0;
    if (status >= 200 && status < 300 && exchange.response) {
      answers.push({ label, body: exchange.response.body });
      meant.push(value === undefined ? (variants.default === undefined ? 'left out' : JSON.stringify(variants.default)) : JSON.stringify(value));
    }
    last = exchange;
    return exchange;
  };

  const leftOut = location === 'path' ? `${name} as in the minimal request` : `no ${name}`;
  for (const value of variants.values) await attempt(value, value === undefined ? leftOut : `${name}=${JSON.stringify(value)}`);
  if (variants.continuation) {
    const first = last;
    const token = first && tokenIn(context, entry, first, variants.continuation.component);
    if (token === undefined) return tally.result(`the first answer offered no ${name}, so the list fits in one page and ${name} cannot be tried here`);
    await attempt(token, `the ${name} it offered`);
  }
  // Each value was still sent and checked above; only "the same answer every time" is no finding for such a field.
  if (variants.noEffect !== undefined) return tally.result(`${name} leaves the answer as it is, as the spec says (x-no-effect: ${variants.noEffect})`);
  // The same answer proves nothing unless the spec makes at least two of the values tried differ: left out and
  // the default are one value (an offset of 0 against none is the default against itself).
  if (variants.continuation === undefined && new Set(meant).size < 2)
    return tally.result(
      `${name}: only values the spec makes equal were accepted (${[...new Set(meant)].join(', ')}${variants.default === undefined ? '' : `; left out means ${JSON.stringify(variants.default)}`}), so its effect is not judged`,
    );
  const effect = judgeEffect(entry.operation.operationId, { location, name, continuation: variants.continuation !== undefined }, answers);
  // A finding only where the spec turns the convention on (`rules.ts`): elsewhere the comparison is a note.
  if (effect.ignored && !context.rules.has('ignored-fields'))
    return tally.result(`${effect.ignored.replace(` ${NO_EFFECT_FIX}`, '')} (a note: the spec does not turn on the ignored-fields rule)`);
  if (effect.ignored && last) tally.record(last, [{ category: 'semantics', message: effect.ignored }]);
  return tally.result(effect.ignored ? undefined : effect.note);
}

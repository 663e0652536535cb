import { deref, isObject, type Json } from '../../../contract/spec.js';
import { type RequestInput, withField } from '../../case.js';
import type { CaseResult } from '../../result.js';
import { Tally } from '../../tally.js';
import { type PhaseContext, phaseCase } from '../phase.js';
import { type Step, step } from './step.js';

/**
 * OpenAPI links: each link of a 2xx answer is followed, its parameters read from the answer
 * (`$response.body#/id`) or the request; the resource it points to must be available.
 */
export async function followLinks(context: PhaseContext): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const { spec } = context.run;
  const byId = new Map(context.facts.map((facts) => [facts.operation.operationId, facts]));
  for (const source of context.facts) {
    const raw = deref(spec, deref(spec, spec.paths[source.operation.path])[source.operation.method.toLowerCase()]);
    const responses = isObject(raw['responses']) ? raw['responses'] : {};
    for (const [status, rawResponse] of Object.entries(responses)) {
      const links = deref(spec, rawResponse)['links'];
      if (!status.startsWith('2') || !isObject(links)) continue;
      for (const [name, rawLink] of Object.entries(links)) {
        const link = deref(spec, rawLink);
        const target = typeof link['operationId'] === 'string' ? byId.get(link['operationId']) : undefined;
        const entry = phaseCase(source, { family: 'stateful', key: `link ${name}`, title: `link ${name} to ${String(link['operationId'])}` });
        const tally = new Tally(context.run, entry, { remember: false });
        if (!target) {
          results.push(tally.skip(undefined, `the link names no operation of this spec (${JSON.stringify(link['operationId'] ?? link['operationRef'])})`));
          continue;
        }
        if (!context.options.allowWrites && (source.unsafe !== undefined || target.unsafe !== undefined)) {
          results.push(tally.skip(undefined, 'the link starts or ends with a write: sent only with --allow-writes'));
          continue;
        }
        if (context.options.stateless && source.unsafe !== undefined) {
          results.push(tally.skip(undefined, 'the link starts with a write, and the target keeps no state (a mock): what it made is not there to follow'));
          continue;
        }
        const sender = { run: context.run, values: context.values, tally, entry };
        const first = await step(sender, source, source.baseline);
        if (first.status === undefined || first.status >= 300) {
          results.push(tally.result(first.unsent ?? `the source answered ${first.status ?? 'nothing'}, so there is no link to follow`));
          continue;
        }
        let input = target.baseline;
        const parameters = isObject(link['parameters']) ? link['parameters'] : {};
        for (const [key, expression] of Object.entries(parameters)) {
          const [where, parameter] = key.includes('.') ? (key.split('.', 2) as [string, string]) : [undefined, key];
          const field = target.fields.find((candidate) => candidate.name === parameter && (where === undefined || candidate.location === where));
          const value = evaluate(expression, source.baseline, first);
          if (field && value !== undefined) input = withField(input, field.location, field.name, value);
        }
        const second = await step(sender, target, input, { label: `then ${target.operation.operationId}` });
        if (second.status !== undefined && (second.status < 200 || second.status >= 300))
          tally.record(second.exchange, [
            {
              category: 'semantics',
              message: `link ${name}: ${target.operation.operationId} answered ${second.status} for what ${source.operation.operationId} answered`,
            },
          ]);
        results.push(tally.result(`followed link ${name}: ${source.operation.operationId} → ${target.operation.operationId}`));
      }
    }
  }
  return results;
}

/** An OpenAPI runtime expression (`$response.body#/id`, `$request.path.id`, `$response.header.Location`) or a constant. */
function evaluate(expression: Json, request: RequestInput, response: Step): Json | undefined {
  if (typeof expression !== 'string' || !expression.startsWith('$')) return expression;
  const [source, pointer] = expression.split('#', 2) as [string, string | undefined];
  if (source === '$response.body') return at(response.body, pointer ?? '');
  if (source === '$request.body') return at(request.body, pointer ?? '');
  const header = /^\$response\.header\.(.+)$/.exec(source);
  if (header?.[1]) return response.exchange.response?.headers.get(header[1]) ?? undefined;
  const part = /^\$request\.(path|query|header)\.(.+)$/.exec(source);
  if (part?.[1] && part[2]) return (part[1] === 'header' ? request.headers : request[part[1] as 'path' | 'query'])[part[2]];
  return undefined;
}

function at(value: Json | undefined, pointer: string): Json | undefined {
  let here = value;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(here)) here = here[Number(key)];
    else if (isObject(here)) here = here[key];
    else return undefined;
  }
  return here;
}

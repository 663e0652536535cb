import type { OperationContract } from '../../../contract/operations.js';
import { isObject, type Json, type JsonObject } from '../../../contract/spec.js';
import { withField } from '../../case.js';
import type { Finding } from '../../checks.js';
import { readBackDifferences } from '../../read-back.js';
import type { CaseResult } from '../../result.js';
import type { RunContext } from '../../run-context.js';
import { Tally } from '../../tally.js';
import { type Harvest, harvest } from '../../values/schema-refs.js';
import { type PhaseContext, phaseCase } from '../phase.js';
import { findById } from './find-by-id.js';
import { otherUserOnCreated } from './ownership.js';
import type { ResourceGroup } from './resource-group.js';
import { businessAnswer, excusedRefusal, freshChange, GONE, rateLimited, type Sender, type Step, step, TOO_MANY_REQUESTS, withBody } from './step.js';

/**
 * create → read → change → read → delete → read on one collection: what was created must be readable
 * (Schemathesis' `ensure_resource_availability`), what a write answers must agree with what a read then
 * shows, a deleted resource must be gone for every operation on its id (`use_after_free`). With another
 * user's credential, what the caller created must be that user's to neither read nor list (`ownership.ts`).
 * Against a target that keeps no state (a mock), only each answer is checked, never what a read shows.
 */
export async function resourceSequence(context: PhaseContext, run: RunContext, group: ResourceGroup): Promise<CaseResult[]> {
  const { create } = group;
  const stateless = context.options.stateless ?? false;
  const entry = phaseCase(create, { family: 'stateful', key: 'lifecycle', title: 'create → read → change → read → delete → read' });
  const tally = new Tally(run, entry, { remember: false });
  const sender: Sender = { run, values: context.values, tally, entry };
  // The first body that validates: a named example (it shows optional fields), else one with every optional field set at
  // any depth (`SchemaValues.full`: each can then be read back), else the minimal valid body.
  const full = create.body ? context.values.full(create.body.schema) : undefined;
  const candidates = [...Object.values(create.body?.examples ?? {}), full, create.baseline.body].filter((body): body is Json => body !== undefined);
  const sent = candidates.find((body) => create.body !== undefined && context.values.isValid(create.body.schema, body)) ?? create.baseline.body;
  const made = await step(sender, create, { ...create.baseline, ...(sent !== undefined && { body: sent }) });
  if (made.unsent !== undefined) return [tally.skip(made.exchange, made.unsent)];
  if (made.status === undefined || made.status >= 300) {
    if (made.status === TOO_MANY_REQUESTS) return [tally.skip(made.exchange, rateLimited(made))];
    if (made.status !== undefined && excusedRefusal(run, create.operation, made.status))
      return [tally.skip(made.exchange, `could not create (${made.status}, documented): nothing to follow`)];
    tally.record(made.exchange, [{ category: 'status', message: `create answered ${made.status ?? 'nothing'}` }]);
    return [tally.result()];
  }
  const component = group.items.flatMap((facts) => facts.fields).find((field) => field.location === 'path' && field.name === group.parameter)?.component;
  const id = idIn(context, create.operation, made, component, group.parameter);
  if (id === undefined) {
    tally.record(made.exchange, [{ category: 'semantics', message: `the create answer holds no ${group.parameter} to follow` }]);
    return [tally.result()];
  }
  const results: CaseResult[] = [];
  const steps: string[] = [`created ${id}`];
  const readBack = async (label: string): Promise<ReadBack> =>
    stateless ? { found: true, how: 'nothing (the target keeps no state)' } : read(sender, group, id, label);
  const compare = (label: string, answer: Json | undefined, body: Json | undefined, after: ReadBack, operation: OperationContract) => {
    if (!after.resource) return;
    const findings = disagreements(context, label, answer, body, after.resource, operation, id, after.schema);
    if (findings.length > 0) tally.record(after.step?.exchange ?? made.exchange, findings);
  };

  const afterCreate = await readBack(`read after ${create.operation.operationId}`);
  if (!afterCreate.found)
    tally.record(afterCreate.step?.exchange ?? made.exchange, [
      { category: 'semantics', message: `${create.operation.operationId} answered ${made.status}, but ${afterCreate.how} does not find ${id}` },
    ]);
  compare(create.operation.operationId, made.body, sent, afterCreate, create.operation);
  if (context.options.otherToken !== undefined && !stateless) results.push(await otherUserOnCreated(context, group, id, context.options.otherToken));

  for (const sub of group.subCreates) {
    // A create of something under the item (a note of a pet): it must be accepted for the item just made; what it answers is the sub-resource, not the item.
    const body = sub.body
      ? (Object.values(sub.body.examples).find((example) => context.values.isValid(sub.body?.schema ?? {}, example)) ?? sub.baseline.body)
      : undefined;
    const input = withField({ ...sub.baseline, ...(body !== undefined && { body }) }, 'path', group.parameter, id);
    const answered = await step(sender, sub, input, { label: sub.operation.operationId });
    steps.push(`${sub.operation.operationId} ${answered.status ?? '---'}`);
    if (
      answered.status !== undefined &&
      answered.status >= 300 &&
      !excusedRefusal(run, sub.operation, answered.status) &&
      answered.status !== TOO_MANY_REQUESTS
    )
      tally.record(answered.exchange, [{ category: 'status', message: `${sub.operation.operationId} on what was just created answered ${answered.status}` }]);
  }

  const deletes = group.items.filter((facts) => facts.operation.method === 'DELETE');
  const changes = group.items.filter((facts) => facts.operation.method !== 'DELETE' && facts.operation.method !== 'GET');
  for (const change of changes) {
    const input = withField(withBody(change, freshChange(context.values, change)), 'path', group.parameter, id);
    const answered = await step(sender, change, input, { label: change.operation.operationId });
    steps.push(`${change.operation.operationId} ${answered.status ?? '---'}`);
    if (answered.status === undefined) continue;
    if (answered.status >= 300) {
      if (!businessAnswer(change.operation, answered.status) && answered.status !== TOO_MANY_REQUESTS)
        tally.record(answered.exchange, [
          { category: 'status', message: `${change.operation.operationId} on what was just created answered ${answered.status}` },
        ]);
      continue;
    }
    const after = await readBack(`read after ${change.operation.operationId}`);
    // An answer about another resource (a roll answers with the new key) is not compared with this one.
    if (idIn(context, change.operation, answered, component, group.parameter) ?? id)
      compare(change.operation.operationId, answered.body, input.body, after, change.operation);
  }

  for (const remove of deletes) {
    const input = withField(remove.baseline, 'path', group.parameter, id);
    const removed = await step(sender, remove, input, { label: remove.operation.operationId });
    steps.push(`${remove.operation.operationId} ${removed.status ?? '---'}`);
    if (removed.status === undefined) continue;
    if (removed.status >= 300) {
      if (!businessAnswer(remove.operation, removed.status) && removed.status !== TOO_MANY_REQUESTS)
        tally.record(removed.exchange, [{ category: 'status', message: `${remove.operation.operationId} answered ${removed.status}` }]);
      continue;
    }
    if (stateless) break;
    // use-after-free: what was deleted is gone for every operation on its id.
    const after = await readBack(`read after ${remove.operation.operationId}`);
    if (after.found)
      tally.record(after.step?.exchange ?? removed.exchange, [
        {
          category: 'semantics',
          message: `use after free: ${remove.operation.operationId} answered ${removed.status}, but ${after.how} still finds ${id}`,
        },
      ]);
    for (const other of [...changes, remove]) {
      const again = await step(sender, other, withField(withBody(other, freshChange(context.values, other)), 'path', group.parameter, id), {
        label: `${other.operation.operationId} after ${remove.operation.operationId}`,
      });
      if (again.status !== undefined && again.status < 300 && other !== remove)
        tally.record(again.exchange, [
          {
            category: 'semantics',
            message: `use after free: ${other.operation.operationId} on ${id} answered ${again.status} after ${remove.operation.operationId} deleted it`,
          },
        ]);
    }
    steps.push('gone');
    break;
  }
  return [tally.result(`${steps.join(' → ')}${stateless ? ' (the target keeps no state: nothing read back)' : ''}`), ...results];
}

/** What a read shows of the resource: found or not, and its representation. */
interface ReadBack {
  found: boolean;
  resource?: JsonObject;
  /** The schema of the read's answer: a field sent but missing where it has room for it, at any depth, was dropped (`read-back.ts`). */
  schema?: Json;
  step?: Step;
  how: string;
}

async function read(sender: Sender, group: ResourceGroup, id: Json, label: string): Promise<ReadBack> {
  if (group.read) {
    const got = await step(sender, group.read, withField(group.read.baseline, 'path', group.parameter, id), { label });
    const how = `${group.read.operation.operationId}`;
    if (got.status !== undefined && GONE.includes(got.status)) return { found: false, step: got, how };
    return {
      found: got.status !== undefined && got.status < 300,
      ...(isObject(got.body) && { resource: got.body, schema: group.read.operation.responses[String(got.status)]?.content['application/json']?.schema ?? {} }),
      step: got,
      how,
    };
  }
  if (group.list) {
    const got = await step(sender, group.list, group.list.baseline, { label });
    const resource = findById(got.body, id);
    // Only a whole list proves that something is not in it: with more pages to come, the item may be on one of them.
    const found = resource !== undefined || (got.status !== undefined && got.status < 300 && morePages(got));
    return { found, ...(resource && { resource }), step: got, how: `${group.list.operation.operationId} (its first page)` };
  }
  return { found: true, how: 'nothing (no read of one item, no list)' };
}

/** Whether a list's answer says there is more after it: a `Link: rel="next"`, or a `next…`/cursor/`hasMore` field that is set. */
function morePages(got: Step): boolean {
  if (/rel="?next"?/i.test(got.exchange.response?.headers.get('link') ?? '')) return true;
  if (!isObject(got.body)) return false;
  return Object.entries(got.body).some(([key, value]) => /^next|cursor|^has_?more$/i.test(key) && value !== null && value !== false && value !== '');
}

/**
 * Where a write and the read after it disagree: a field it was sent that reads back otherwise (a rename
 * that does not rename) or not at all though the read's answer declares it (`declares`: an optional field
 * dropped), or a field its answer shows that reads back otherwise (an answer that shows
 * another state than the resource is in, such as a revoked key's example for an active key).
 */
function disagreements(
  context: PhaseContext,
  label: string,
  answer: Json | undefined,
  sent: Json | undefined,
  resource: JsonObject,
  operation: OperationContract,
  id: Json,
  readSchema: Json | undefined,
): Finding[] {
  const findings: Finding[] = [];
  const scalar = (value: Json | undefined) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (sent !== undefined) {
    // At any depth, through allOf and oneOf (`read-back.ts`): an optional field of a oneOf dropped by a create is found too.
    const request = { schema: operation.requestBody?.content['application/json']?.schema, sent };
    for (const difference of readBackDifferences(context.run.spec, request, { schema: readSchema, resource })) {
      const where = difference.pointer.slice(1);
      findings.push({
        category: 'semantics',
        message: `${label} was sent ${where} ${JSON.stringify(difference.sent)}, but ${id} reads back ${difference.read === undefined ? `no ${where}` : `${where} ${JSON.stringify(difference.read)}`}`,
      });
    }
  }
  if (isObject(answer)) {
    for (const [name, value] of Object.entries(answer)) {
      if (!scalar(value) || !(name in resource) || resource[name] === value) continue;
      if (isObject(sent) && name in sent) continue;
      findings.push({
        category: 'semantics',
        message: `${label} answered ${name} ${JSON.stringify(value)}, but ${id} reads back ${name} ${JSON.stringify(resource[name])}`,
      });
    }
  }
  return findings;
}

export function idIn(context: PhaseContext, operation: OperationContract, answered: Step, component: string | undefined, parameter: string): Json | undefined {
  const schema = answered.status === undefined ? undefined : operation.responses[String(answered.status)]?.content['application/json']?.schema;
  if (component && schema !== undefined && answered.body !== undefined) {
    const found: Harvest = new Map();
    harvest(context.run.spec, schema, answered.body, found);
    const value = found.get(component)?.[0];
    if (value !== undefined) return value;
  }
  return isObject(answered.body) ? (answered.body[parameter] ?? answered.body['id']) : undefined;
}

import { randomBytes } from 'node:crypto';
import type { OperationContract } from '../../contract/operations.js';
import { deref, isObject, type Json, type JsonObject } from '../../contract/spec.js';
import { type RequestInput, type SuiteCase, withField } from '../case.js';
import { checkExchange, type Finding, parseJson } from '../checks.js';
import type { Exchange } from '../http.js';
import { documents, type OperationFacts } from '../operation-facts.js';
import type { CaseResult } from '../result.js';
import type { RunContext } from '../run-context.js';
import { Tally } from '../tally.js';
import { type Harvest, harvest, resolveSchema } from '../values/schema-refs.js';
import { asCaller, type Phase, type PhaseContext, phaseCase } from './phase.js';
import { inWriteOrder, type WriteRole, writeRole } from './write-order.js';

const INPUT_ERRORS = new Set([400, 401, 413, 415, 422, 429]);
const TOO_MANY_REQUESTS = 429;
const GONE = [404, 410];

/** One request of a sequence, and what it showed. */
interface Step {
  exchange: Exchange;
  status: number | undefined;
  body: Json | undefined;
}

/**
 * The stateful phase: sequences of requests where each uses what an earlier answer gave.
 * - OpenAPI links: each link of a 2xx answer is followed, its parameters read from the answer
 *   (`$response.body#/id`) or the request; the resource it points to must be available.
 * - Where a collection has a create (`POST /things` answering with a body) and operations on its
 *   items (`/things/{id}`...), the sequence create → read → change → read → delete → read is inferred:
 *   what was created must be readable (Schemathesis' `ensure_resource_availability`), what a write
 *   answers must agree with what a read then shows (a rename that does not rename, an optional field
 *   dropped, an answer that shows another state than the resource has), and a deleted resource must be gone for every operation on
 *   its id (`use_after_free`).
 * - The other writes once each, in the order of `write-order.ts`; where the spec has a sign-up, under a
 *   throwaway account made for the run, and a credential that a write ended must then be refused.
 * Writes only with `allowWrites`.
 */
export const statefulPhase: Phase = async (context) => {
  if (!context.options.stateful) return [];
  const results = await followLinks(context);
  if (!context.options.allowWrites) return results;
  const writes = inWriteOrder(context.run.spec, context.facts);
  const done = new Set<string>();
  const session = await throwawayAccount(context, writes, done);
  if (session.result) results.push(session.result);
  const run = session.run;
  for (const group of resourceGroups(context)) {
    results.push(await resourceSequence(context, run, group));
    for (const facts of [group.create, ...group.items]) done.add(facts.operation.operationId);
  }
  let current = run;
  const throwaway = session.renew !== undefined;
  for (const { facts, role } of writes) {
    if (done.has(facts.operation.operationId)) continue;
    const entry = phaseCase(facts, { family: 'write-effect', title: `one write, in the safe order (${role})` });
    if (role === 'makes-credential') {
      // A sign-in with made-up credentials proves nothing; with the throwaway's it was sent above.
      results.push(new Tally(run, entry).skip(undefined, 'makes a credential: sent only for a throwaway account, which could not be made'));
      continue;
    }
    if (role === 'ends-credential' && !throwaway && writes.some((write) => write.role === 'makes-credential')) {
      // The spec has a sign-up, but no throwaway could be made: never end the credential the run was given.
      results.push(
        new Tally(run, entry).skip(undefined, 'would end the credential the run was given: sent only under a throwaway account, which could not be made'),
      );
      continue;
    }
    const { result, ended } = await oneWrite(context, current, facts, role, session);
    results.push(result);
    // A write ended the throwaway's session (it ended the very session it named): sign in again for the writes after it.
    if (ended && session.renew) current = (await session.renew()) ?? current;
  }
  return results;
};

// --- links -----------------------------------------------------------------------------------------

async function followLinks(context: PhaseContext): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const byId = new Map(context.facts.map((facts) => [facts.operation.operationId, facts]));
  for (const source of context.facts) {
    const raw = deref(context.run.spec, deref(context.run.spec, context.run.spec.paths[source.operation.path])[source.operation.method.toLowerCase()]);
    const responses = isObject(raw['responses']) ? raw['responses'] : {};
    for (const [status, rawResponse] of Object.entries(responses)) {
      const links = deref(context.run.spec, rawResponse)['links'];
      if (!status.startsWith('2') || !isObject(links)) continue;
      for (const [name, rawLink] of Object.entries(links)) {
        const link = deref(context.run.spec, rawLink);
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
        const first = await step(context.run, tally, entry, source, source.baseline);
        if (first.status === undefined || first.status >= 300) {
          results.push(tally.result(`the source answered ${first.status ?? 'nothing'}, so there is no link to follow`));
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
        const second = await step(context.run, tally, entry, target, input, { label: `then ${target.operation.operationId}` });
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

// --- a throwaway account ---------------------------------------------------------------------------

interface Session {
  run: RunContext;
  result?: CaseResult;
  /** The throwaway's password, for a write that asks for the current one (a password change). */
  password?: string;
  /** Signs the throwaway in again: the run under a new session. */
  renew?: () => Promise<RunContext | undefined>;
}

/**
 * Where the spec lets anyone make a credential (sign-up: `security: []` and a `Set-Cookie` on success),
 * one is made for the run with a random name and password, and every write runs under it: whatever a
 * write does (revoke, sign out, end a session), it does it to the throwaway, never to the credential
 * the run was given.
 */
async function throwawayAccount(context: PhaseContext, writes: Array<{ facts: OperationFacts; role: WriteRole }>, done: Set<string>): Promise<Session> {
  const signUp =
    writes.find(({ facts, role }) => role === 'makes-credential' && facts.success === 201)?.facts ??
    writes.find(({ role }) => role === 'makes-credential')?.facts;
  if (!signUp?.body) return { run: context.run };
  done.add(signUp.operation.operationId);
  const entry = phaseCase(signUp, { family: 'stateful', key: 'throwaway account', title: 'a throwaway account for the writes of this run' });
  // The throwaway's own harvest: the ids its writes act on are those its own answers gave, never the given user's.
  const own: RunContext = { ...context.run, harvest: new Map() };
  const tally = new Tally(own, entry, { remember: false });
  const body = freshValues(context, signUp.body.schema);
  const made = await step(own, tally, entry, signUp, { ...signUp.baseline, body });
  const token = made.exchange.response ? credentialIn(own, signUp, made.exchange.response.headers) : undefined;
  if (made.status === undefined || made.status >= 300 || token === undefined) {
    if (made.status !== undefined && made.status < 300)
      tally.record(made.exchange, [{ category: 'contract', message: 'signed up, but the answer set no session cookie' }]);
    return { run: context.run, result: tally.result(`no throwaway account (${made.status ?? 'no answer'}): the writes run under the credential given`) };
  }
  const signIn = writes.find(({ facts, role }) => role === 'makes-credential' && facts !== signUp)?.facts;
  if (signIn) done.add(signIn.operation.operationId);
  if (signIn?.body && isObject(body)) {
    // Sign in as the throwaway too: a second session, so that ending one (the writes' own) is not the end of the run.
    const again = await step(own, tally, entry, signIn, { ...signIn.baseline, body: pick(body, signIn, context) }, { label: signIn.operation.operationId });
    if (again.status !== undefined && (again.status < 200 || again.status >= 300))
      tally.record(again.exchange, [
        { category: 'status', message: `${signIn.operation.operationId} with the throwaway's own name and password answered ${again.status}` },
      ]);
  }
  const password = isObject(body) ? Object.entries(body).find(([name]) => /pass/i.test(name))?.[1] : undefined;
  const session: Session = { run: own };
  const renew = async (): Promise<RunContext | undefined> => {
    if (!signIn?.body || !isObject(body)) return undefined;
    const renewal = new Tally(own, entry, { remember: false });
    const again = await step(own, renewal, entry, signIn, { ...signIn.baseline, body: pick(withPassword(body, session.password), signIn, context) });
    const fresh = again.exchange.response ? credentialIn(own, signIn, again.exchange.response.headers) : undefined;
    return fresh === undefined ? undefined : asCaller(own, fresh, '$SESSION');
  };
  session.renew = renew;
  session.run = asCaller(own, token, '$SESSION');
  session.result = tally.result('signed up a throwaway account; the writes below run under its session');
  if (typeof password === 'string') session.password = password;
  return session;
}

/** Random valid values for a credential body: a name no one has, a password no one guesses. */
function freshValues(context: PhaseContext, schema: Json): Json {
  const resolved = resolveSchema(context.run.spec, schema);
  const properties = isObject(resolved['properties']) ? resolved['properties'] : {};
  const body: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) {
    const required = Array.isArray(resolved['required']) && resolved['required'].includes(name);
    if (!required) continue;
    const secret = /pass|secret/i.test(name) ? `${randomBytes(18).toString('base64url')}-Cs` : undefined;
    const value = secret ?? context.values.unguessable(property) ?? context.values.one(property);
    if (value !== undefined) body[name] = value;
  }
  return body;
}

/** The body with its password fields set to `password` (the throwaway's current one). */
function withPassword(body: JsonObject, password: string | undefined): JsonObject {
  if (password === undefined) return body;
  return Object.fromEntries(Object.entries(body).map(([name, value]) => [name, /pass/i.test(name) ? password : value]));
}

/** The fields of `body` that another operation's body takes (sign-in takes sign-up's name and password). */
function pick(body: JsonObject, facts: OperationFacts, context: PhaseContext): Json {
  const schema = resolveSchema(context.run.spec, facts.body?.schema);
  const properties = isObject(schema['properties']) ? Object.keys(schema['properties']) : [];
  return Object.fromEntries(Object.entries(body).filter(([name]) => properties.includes(name)));
}

/** The credential a `Set-Cookie` answer gives, under the cookie name the secured operations take (`__Host-` prefix optional over plain HTTP). */
function credentialIn(run: RunContext, made: OperationFacts, headers: Headers): string | undefined {
  const cookieOf = (facts: OperationFacts) =>
    run.checks.credentials.requirementOf(facts.operation)?.schemes.find((scheme) => scheme.kind === 'apiKey' && scheme.in === 'cookie');
  const scheme = [...run.facts.values()].flatMap((facts) => (facts === made ? [] : [cookieOf(facts)])).find((found) => found !== undefined);
  if (scheme?.kind !== 'apiKey') return undefined;
  const names = new Set([scheme.key, scheme.key.replace(/^__Host-/, '')]);
  for (const cookie of headers.getSetCookie()) {
    const [pair] = cookie.split(';');
    const [name, ...value] = (pair ?? '').split('=');
    if (name && names.has(name.trim()) && value.join('=') !== '') return value.join('=');
  }
  return undefined;
}

// --- create → read → change → read → delete → read --------------------------------------------------

interface ResourceGroup {
  create: OperationFacts;
  /** The list of the collection, if it has one: where a created item is read when there is no GET on the item. */
  list?: OperationFacts;
  read?: OperationFacts;
  items: OperationFacts[];
  /** The path parameter that names an item. */
  parameter: string;
}

function resourceGroups(context: PhaseContext): ResourceGroup[] {
  const groups: ResourceGroup[] = [];
  for (const create of context.facts) {
    const { operation } = create;
    if (writeRole(context.run.spec, operation) !== 'creates' || !create.success || !create.body) continue;
    const prefix = `${operation.path.replace(/\/$/, '')}/{`;
    const items = context.facts.filter((facts) => facts.operation.path.startsWith(prefix));
    const first = items[0];
    if (!first) continue;
    const parameter = /^\{([^}]+)\}/.exec(first.operation.path.slice(prefix.length - 1))?.[1];
    if (!parameter) continue;
    const sameItem = items.filter((facts) => facts.operation.path.startsWith(`${prefix}${parameter}}`));
    const read = sameItem.find((facts) => facts.operation.method === 'GET' && facts.operation.path === `${prefix}${parameter}}`);
    const list = context.facts.find((facts) => facts.operation.method === 'GET' && facts.operation.path === operation.path);
    groups.push({ create, ...(list && { list }), ...(read && { read }), items: sameItem.filter((facts) => facts !== read), parameter });
  }
  return groups;
}

async function resourceSequence(context: PhaseContext, run: RunContext, group: ResourceGroup): Promise<CaseResult> {
  const { create } = group;
  const entry = phaseCase(create, { family: 'stateful', key: 'lifecycle', title: 'create → read → change → read → delete → read' });
  const tally = new Tally(run, entry, { remember: false });
  const sent = create.body ? (Object.values(create.body.examples)[0] ?? create.baseline.body) : undefined;
  const made = await step(run, tally, entry, create, { ...create.baseline, ...(sent !== undefined && { body: sent }) });
  if (made.status === undefined || made.status >= 300) {
    if (made.status === TOO_MANY_REQUESTS) return tally.skip(made.exchange, rateLimited(made));
    if (made.status !== undefined && businessAnswer(create.operation, made.status))
      return tally.skip(made.exchange, `could not create (${made.status}): nothing to follow`);
    tally.record(made.exchange, [{ category: 'status', message: `create answered ${made.status ?? 'nothing'}` }]);
    return tally.result();
  }
  const component = group.items.flatMap((facts) => facts.fields).find((field) => field.location === 'path' && field.name === group.parameter)?.component;
  const id = idIn(context, create.operation, made, component, group.parameter);
  if (id === undefined) {
    tally.record(made.exchange, [{ category: 'semantics', message: `the create answer holds no ${group.parameter} to follow` }]);
    return tally.result();
  }
  const steps: string[] = [`created ${id}`];
  const readBack = async (label: string) => read(run, tally, entry, group, id, label);
  const compare = (label: string, answer: Json | undefined, body: Json | undefined, after: ReadBack, operation: OperationContract) => {
    if (!after.resource) return;
    const findings = disagreements(context, label, answer, body, after.resource, operation, id, after.declares);
    if (findings.length > 0) tally.record(after.step?.exchange ?? made.exchange, findings);
  };

  const afterCreate = await readBack(`read after ${create.operation.operationId}`);
  if (!afterCreate.found)
    tally.record(afterCreate.step?.exchange ?? made.exchange, [
      { category: 'semantics', message: `${create.operation.operationId} answered ${made.status}, but ${afterCreate.how} does not find ${id}` },
    ]);
  compare(create.operation.operationId, made.body, sent, afterCreate, create.operation);

  const deletes = group.items.filter((facts) => facts.operation.method === 'DELETE');
  const changes = group.items.filter((facts) => facts.operation.method !== 'DELETE' && facts.operation.method !== 'GET');
  for (const change of changes) {
    const input = withField(withBody(change, freshChange(context, change)), 'path', group.parameter, id);
    const answered = await step(run, tally, entry, change, input, { label: change.operation.operationId });
    steps.push(`${change.operation.operationId} ${answered.status ?? '---'}`);
    if (answered.status === undefined) continue;
    if (answered.status >= 300) {
      if (!businessAnswer(change.operation, answered.status))
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
    const removed = await step(run, tally, entry, remove, input, { label: remove.operation.operationId });
    steps.push(`${remove.operation.operationId} ${removed.status ?? '---'}`);
    if (removed.status === undefined) continue;
    if (removed.status >= 300) {
      if (!businessAnswer(remove.operation, removed.status))
        tally.record(removed.exchange, [{ category: 'status', message: `${remove.operation.operationId} answered ${removed.status}` }]);
      continue;
    }
    // use-after-free: what was deleted is gone for every operation on its id.
    const after = await readBack(`read after ${remove.operation.operationId}`);
    if (after.found)
      tally.record(after.step?.exchange ?? removed.exchange, [
        { category: 'semantics', message: `use after free: ${remove.operation.operationId} answered ${removed.status}, but ${after.how} still finds ${id}` },
      ]);
    for (const other of [...changes, remove]) {
      const again = await step(run, tally, entry, other, withField(withBody(other, freshChange(context, other)), 'path', group.parameter, id), {
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
  return tally.result(steps.join(' → '));
}

/** What a read shows of the resource: found or not, and its representation. */
interface ReadBack {
  found: boolean;
  resource?: JsonObject;
  /** The fields the read's answer declares at its top level: one sent but missing there was dropped. */
  declares?: Set<string>;
  step?: Step;
  how: string;
}

async function read(run: RunContext, tally: Tally, entry: SuiteCase, group: ResourceGroup, id: Json, label: string): Promise<ReadBack> {
  if (group.read) {
    const got = await step(run, tally, entry, group.read, withField(group.read.baseline, 'path', group.parameter, id), { label });
    const how = `${group.read.operation.operationId}`;
    if (got.status !== undefined && GONE.includes(got.status)) return { found: false, step: got, how };
    return {
      found: got.status !== undefined && got.status < 300,
      ...(isObject(got.body) && { resource: got.body, declares: answerFields(run, group.read.operation, got.status) }),
      step: got,
      how,
    };
  }
  if (group.list) {
    const got = await step(run, tally, entry, group.list, group.list.baseline, { label });
    const resource = findById(got.body, id);
    return { found: resource !== undefined, ...(resource && { resource }), step: got, how: `${group.list.operation.operationId} (its first page)` };
  }
  return { found: true, how: 'nothing (no read of one item, no list)' };
}

/** The object anywhere in an answer that carries `id` as one of its values. */
function findById(body: Json | undefined, id: Json, depth = 0): JsonObject | undefined {
  if (depth > 6) return undefined;
  if (Array.isArray(body)) {
    for (const entry of body) {
      const found = findById(entry, id, depth + 1);
      if (found) return found;
    }
  } else if (isObject(body)) {
    if (Object.values(body).some((value) => value === id)) return body;
    for (const value of Object.values(body)) {
      const found = findById(value, id, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
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
  declares: Set<string> | undefined,
): Finding[] {
  const findings: Finding[] = [];
  const scalar = (value: Json | undefined) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  const writeOnly = writeOnlyFields(context, operation);
  if (isObject(sent)) {
    for (const [name, value] of Object.entries(sent)) {
      if (writeOnly.has(name) || !scalar(value)) continue;
      if (!(name in resource)) {
        // A field the answer may carry (optional there) but does not: the write dropped what it was sent.
        if (declares?.has(name))
          findings.push({ category: 'semantics', message: `${label} was sent ${name} ${JSON.stringify(value)}, but ${id} reads back no ${name}` });
        continue;
      }
      if (resource[name] === value) continue;
      findings.push({
        category: 'semantics',
        message: `${label} was sent ${name} ${JSON.stringify(value)}, but ${id} reads back ${name} ${JSON.stringify(resource[name])}`,
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

/** The top-level fields of the JSON answer the spec documents for `status`: what a read of the resource may show. */
function answerFields(run: RunContext, operation: OperationContract, status: number | undefined): Set<string> {
  const media = operation.responses[String(status)]?.content['application/json'];
  const schema = resolveSchema(run.spec, media?.schema);
  return new Set(isObject(schema['properties']) ? Object.keys(schema['properties']) : []);
}

function writeOnlyFields(context: PhaseContext, operation: OperationContract): Set<string> {
  const schema = resolveSchema(context.run.spec, operation.requestBody?.content['application/json']?.schema);
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  return new Set(
    Object.entries(properties)
      .filter(([, property]) => resolveSchema(context.run.spec, property)['writeOnly'] === true)
      .map(([name]) => name),
  );
}

/** A body for a change: its fields with new values, so that a change that changes nothing shows. */
function freshChange(context: PhaseContext, facts: OperationFacts): Json | undefined {
  const schema = facts.body?.schema;
  if (schema === undefined) return undefined;
  const base = facts.baseline.body;
  if (!isObject(base)) return base;
  const body: JsonObject = { ...base };
  for (const field of facts.fields) {
    if (field.location !== 'body' || field.resolved['type'] !== 'string' || field.resolved['enum'] !== undefined) continue;
    if (!(field.name in body)) continue;
    const fresh = context.values.unguessable(field.schema);
    if (fresh !== undefined) body[field.name] = fresh;
  }
  return context.values.isValid(schema, body) ? body : base;
}

function idIn(context: PhaseContext, operation: OperationContract, answered: Step, component: string | undefined, parameter: string): Json | undefined {
  const schema = answered.status === undefined ? undefined : operation.responses[String(answered.status)]?.content['application/json']?.schema;
  if (component && schema !== undefined && answered.body !== undefined) {
    const found: Harvest = new Map();
    harvest(context.run.spec, schema, answered.body, found);
    const value = found.get(component)?.[0];
    if (value !== undefined) return value;
  }
  return isObject(answered.body) ? (answered.body[parameter] ?? answered.body['id']) : undefined;
}

/** A 429 is the service protecting itself, not a finding: the run says so and moves on. */
function rateLimited(answered: Step): string {
  return `rate limited (429, Retry-After: ${answered.exchange.response?.headers.get('retry-after') ?? 'not sent'}): run again later`;
}

/** A documented 4xx that is about the resource's state, not the request's form (404, 409): a business answer. */
function businessAnswer(operation: OperationContract, status: number): boolean {
  return status >= 400 && status < 500 && !INPUT_ERRORS.has(status) && documents(operation, status);
}

// --- the other writes, once each -------------------------------------------------------------------

async function oneWrite(
  context: PhaseContext,
  run: RunContext,
  facts: OperationFacts,
  role: WriteRole,
  session: Session,
): Promise<{ result: CaseResult; ended: boolean }> {
  const entry = phaseCase(facts, { family: 'write-effect', title: `one write, in the safe order (${role})` });
  const tally = new Tally(run, entry, { remember: false });
  let input = facts.body
    ? { ...facts.baseline, body: withSecrets(freshChange(context, facts) ?? facts.baseline.body ?? {}, session.password) }
    : facts.baseline;
  for (const value of facts.live.filter((live) => live.source === 'seen')) {
    let seen = run.harvest.get(value.component)?.[0];
    if (seen === undefined) {
      // Read what the throwaway may list (its sessions, its keys): the ids a write acts on come from its own answers.
      for (const list of [...run.facts.values()].filter((other) => other.operation.method === 'GET' && other.success !== undefined && other.live.length === 0))
        await step(run, tally, entry, list, list.baseline, { label: `${list.operation.operationId}, for a ${value.name}` });
      seen = run.harvest.get(value.component)?.[0];
    }
    if (seen === undefined) return { result: tally.skip(undefined, `no ${value.name} seen in the run's answers to act on`), ended: false };
    input = withField(input, value.location, value.name, seen);
  }
  const done = await step(run, tally, entry, facts, input);
  if (done.status === undefined) return { result: tally.result(), ended: false };
  if (done.status === TOO_MANY_REQUESTS) return { result: tally.skip(done.exchange, rateLimited(done)), ended: false };
  if (done.status >= 300) {
    if (!businessAnswer(facts.operation, done.status))
      tally.record(done.exchange, [{ category: 'status', message: `a valid write was answered ${done.status}` }]);
    const business = businessAnswer(facts.operation, done.status) ? ', a documented answer about the state of what it acts on' : '';
    return { result: tally.result(`answered ${done.status}${business}`), ended: false };
  }
  // A password the throwaway changed is its password from now on (a later sign-in needs it).
  const changed = isObject(input.body) ? Object.entries(input.body).find(([name]) => /pass/i.test(name) && !/current|old/i.test(name))?.[1] : undefined;
  if (typeof changed === 'string' && session.password !== undefined) session.password = changed;
  if (role === 'ends-credential' && clearsCookie(done)) {
    // The credential this write ended must now be refused: a sign-out that does not sign out is found here.
    const read = [...run.facts.values()].find(
      (other) => other.operation.method === 'GET' && other.operation.security.length > 0 && other.live.length === 0 && other.success !== undefined,
    );
    if (read) {
      const after = await step(run, tally, entry, read, read.baseline, { label: `${read.operation.operationId} with the ended credential` });
      if (after.status === TOO_MANY_REQUESTS)
        return { result: tally.result(`answered ${done.status}; whether the ended credential is refused is unknown: ${rateLimited(after)}`), ended: true };
      if (after.status !== 401)
        tally.record(after.exchange, [
          {
            category: 'semantics',
            message: `${facts.operation.operationId} answered ${done.status} and cleared the cookie, but the credential still gets ${after.status ?? 'no answer'} from ${read.operation.operationId}`,
          },
        ]);
      return { result: tally.result(`answered ${done.status}; the ended credential is refused afterwards`), ended: true };
    }
  }
  return { result: tally.result(`answered ${done.status}`), ended: role === 'ends-credential' && clearsCookie(done) };
}

/**
 * A body's secrets as the throwaway knows them: a field named for the current (or old) password gets its
 * password, any other password field a new strong one. Read from field names: the spec has no keyword for it.
 */
function withSecrets(body: Json, password: string | undefined): Json {
  if (!isObject(body) || password === undefined) return body;
  const out: JsonObject = { ...body };
  for (const name of Object.keys(out)) {
    if (!/pass/i.test(name)) continue;
    out[name] = /current|old/i.test(name) ? password : `${randomBytes(18).toString('base64url')}-Nw`;
  }
  return out;
}

function clearsCookie(done: Step): boolean {
  return (done.exchange.response?.headers.getSetCookie() ?? []).some((cookie) => /max-age=0/i.test(cookie));
}

/** The operation's baseline with another body (when it takes one and there is one). */
function withBody(facts: OperationFacts, body: Json | undefined): RequestInput {
  return body === undefined || !facts.body ? facts.baseline : { ...facts.baseline, body };
}

// --- one request of a sequence ---------------------------------------------------------------------

async function step(
  run: RunContext,
  tally: Tally,
  entry: SuiteCase,
  facts: OperationFacts,
  input: RequestInput,
  options: { label?: string } = {},
): Promise<Step> {
  const exchange = await tally.send(input, {}, facts.operation);
  const status = exchange.response?.status;
  const findings = checkExchange(run.checks, { ...entry, operation: facts.operation, expectedStatus: status ?? 0 }, exchange, input).filter(
    (finding) => finding.category !== 'status',
  );
  const label = options.label ?? facts.operation.operationId;
  if (findings.length > 0)
    tally.record(
      exchange,
      findings.map((finding) => ({ ...finding, message: `${label}: ${finding.message}` })),
    );
  return { exchange, status, body: exchange.response ? parseJson(exchange.response.body) : undefined };
}

import fc from 'fast-check';
import { isObject, type Json } from '../../contract/spec.js';
import { fieldOf, type RequestInput, withField } from '../case.js';
import { checkExchange, type Finding, parseJson } from '../checks.js';
import type { Exchange } from '../http.js';
import { excusesFor } from '../known-differences.js';
import { resolveLive } from '../live-values.js';
import { documents, type OperationFacts } from '../operation-facts.js';
import type { CaseResult } from '../result.js';
import { Tally } from '../tally.js';
import { validValue } from './arbitraries.js';
import { coverageValues } from './boundaries.js';
import { applyMutation, type Mutation, mutationsOf } from './mutations.js';
import { labelled, type Phase, type PhaseContext, phaseCase } from './phase.js';
import { type WriteRole, writeRole } from './write-order.js';

/** Requests fast-check may spend shrinking one failure, on top of the examples: bounded, since each is a request to a live service. */
const SHRINK_REQUESTS = 80;
/** Statuses that say a request is malformed: a valid request must never get one. Any other documented 4xx is a business answer (404, 409). */
const INPUT_ERRORS = new Set([400, 413, 415, 422]);
const UNAUTHORIZED = 401;
const TOO_MANY_REQUESTS = 429;

/** What one generated request showed. */
interface Trial {
  exchange: Exchange;
  findings: Finding[];
  label: string;
}

/**
 * The property-based phase: for every operation, `examples` valid requests
 * generated from its schemas (every field, nested ones too; small domains such
 * as an enum or `limit` 1–100 walked value by value as far as the count goes)
 * and `examples` invalid ones (one constraint broken, top-level or nested,
 * including values a lenient server coerces). Every answer is checked: no 5xx,
 * the documented status and schema, a page's size and order; a valid request is
 * not refused as malformed, an invalid one is refused with a documented 4xx.
 * The first failure of each is shrunk by fast-check to a minimal request, shown
 * as a curl. Seeded: `--seed` repeats a run exactly.
 */
export const propertyPhase: Phase = async (context) => {
  if (context.options.examples <= 0) return [];
  const results: CaseResult[] = [];
  for (const facts of context.facts) {
    results.push(await validRequests(context, facts));
    const invalid = await invalidRequests(context, facts);
    if (invalid) results.push(invalid);
  }
  return results;
};

async function validRequests(context: PhaseContext, facts: OperationFacts): Promise<CaseResult> {
  const { examples } = context.options;
  const entry = phaseCase(facts, { family: 'property-valid', title: `${examples} valid requests generated from the schemas` });
  const tally = new Tally(context.run, entry);
  if (facts.success === undefined) return tally.skip(undefined, 'no documented 2xx to expect');
  if (facts.unsafe !== undefined) return tally.skip(undefined, facts.unsafe);
  const role = writeRole(context.run.spec, facts.operation);
  const notInVolume = role === undefined ? undefined : writeNotInVolume(context, role, facts);
  if (notInVolume !== undefined) return tally.skip(undefined, notInVolume);
  const resolved = await resolveLive(context.run, tally, entry, facts.baseline, facts.live);
  if ('result' in resolved) return resolved.result;
  // A write to an item (`PATCH /pets/{id}`, `POST /pets/{id}/notes`) acts on one the run creates for it, so its answers are about the body.
  const target = role === undefined ? { input: resolved.input } : await writeTarget(context, tally, facts, resolved.input);
  if ('result' in target) return target.result;
  const base = target.input;
  const generated = requestArbitrary(context, facts, base);
  // Deterministic first (whole small domains, every field's edges), however few the examples: then `examples` random ones.
  const coverage = coverageExamples(context, facts, base);
  const outcome = await search(context, generated, coverage, async (input) => {
    const exchange = await tally.send(input);
    const status = exchange.response?.status;
    if (status === TOO_MANY_REQUESTS) return 'limited';
    const findings = checkExchange(context.run.checks, { ...entry, expectedStatus: status ?? 0 }, exchange, input);
    if (status !== undefined && (status >= 300 || !documents(facts.operation, status))) {
      const business = status >= 400 && status < 500 && status !== UNAUTHORIZED && !INPUT_ERRORS.has(status) && documents(facts.operation, status);
      if (!business) findings.push({ category: 'status', message: `a valid request was answered ${status}` });
    }
    return { exchange, findings, label: describe(input, base) };
  });
  return report(tally, outcome, `${coverage.length} of them the deterministic walk of every field's edges and small domains`);
}

async function invalidRequests(context: PhaseContext, facts: OperationFacts): Promise<CaseResult | undefined> {
  const { run, values, options } = context;
  const mutations = mutationsOf(run.spec, values, facts)?.filter(
    // A difference of the target that excuses a status finding for this kind of fault (Prism and unknown query parameters) is not tried.
    (mutation) => excusesFor(run.target, { family: mutation.family, location: mutation.location }, 'status') === undefined,
  );
  if (!mutations) return undefined;
  const entry = phaseCase(facts, {
    family: 'property-invalid',
    polarity: 'negative',
    title: `${options.examples} invalid requests, one constraint broken in each`,
  });
  const tally = new Tally(run, entry);
  const resolved = await resolveLive(run, tally, entry, facts.baseline, facts.live);
  if ('result' in resolved) return resolved.result;
  const base = resolved.input;
  const rejections = Object.keys(facts.operation.responses)
    .filter((status) => /^4(\d\d|XX)$/.test(status) && status !== String(UNAUTHORIZED) && status !== String(TOO_MANY_REQUESTS))
    .join(', ');
  const bases = fc.oneof({ arbitrary: fc.constant(base), weight: 3 }, { arbitrary: requestArbitrary(context, facts, base), weight: 1 });
  const outcome = await search(context, fc.tuple(bases, mutations), [], async ([valid, mutation]: [RequestInput, Mutation]) => {
    const { input, overrides } = applyMutation(valid, mutation);
    const exchange = await tally.send(input, overrides);
    const status = exchange.response?.status;
    if (status === TOO_MANY_REQUESTS) return 'limited';
    const findings = checkExchange(run.checks, { ...entry, expectedStatus: status ?? 0 }, exchange, input).filter(
      (finding) => !(finding.category === 'semantics' && status !== undefined && status < 300),
    );
    if (status !== undefined) {
      if (status < 400) findings.push({ category: 'status', message: `the invalid request was accepted with ${status}` });
      else if (status < 500 && (status === UNAUTHORIZED || !documents(facts.operation, status)))
        findings.push({ category: 'status', message: `refused with ${status}, which is not one of the documented refusals (${rejections || 'none'})` });
      else if (status >= 500) findings.push({ category: 'contract', message: `a server error (${status}) for a request the server should refuse` });
    }
    return { exchange, findings, label: mutation.title };
  });
  return report(tally, outcome);
}

interface Outcome {
  failure?: Trial;
  requests: number;
  shrinks: number;
  limited: boolean;
  seed: number;
}

/**
 * Runs one property with fast-check and keeps the last failing trial: fast-check
 * shrinks towards smaller inputs and tries each, so the last one that failed is
 * the minimal case it found. Past the request budget (the examples, then
 * `SHRINK_REQUESTS` for shrinking) and after a 429, every trial passes unsent.
 */
async function search<T>(context: PhaseContext, arbitrary: fc.Arbitrary<T>, examples: T[], trial: (value: T) => Promise<Trial | 'limited'>): Promise<Outcome> {
  const { examples: runs, seed } = context.options;
  const budget = examples.length + runs + SHRINK_REQUESTS;
  let requests = 0;
  let limited = false;
  let failure: Trial | undefined;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      if (limited || requests >= budget) return true;
      requests++;
      const outcome = await trial(value);
      if (outcome === 'limited') {
        limited = true;
        return true;
      }
      if (outcome.findings.length === 0) return true;
      failure = outcome;
      return false;
    }),
    { seed, numRuns: examples.length + runs, examples: examples.map((example) => [example] as [T]) },
  );
  return { ...(failure && { failure }), requests, shrinks: details.numShrinks, limited, seed };
}

function report(tally: Tally, outcome: Outcome, extra?: string): CaseResult {
  const { failure, requests, shrinks, limited, seed } = outcome;
  const stop = limited ? `; stopped at a 429 after ${requests} requests (rate limited: run again later, or with fewer --examples)` : '';
  if (failure) {
    tally.record(failure.exchange, labelled(failure.label, failure.findings));
    return tally.result(`seed ${seed}: ${requests} requests, the failure shrunk ${shrinks} times to the request below${stop}`);
  }
  return tally.result(`seed ${seed}: ${requests} requests${extra ? ` (${extra})` : ''}, every answer as the contract says${stop}`);
}

/** Valid requests: every field the caller may set (not a continuation token, which only the API can give), optional ones sometimes left out. */
function requestArbitrary(context: PhaseContext, facts: OperationFacts, base: RequestInput): fc.Arbitrary<RequestInput> {
  const { run, values } = context;
  const fields = facts.fields.filter((field) => field.location !== 'path' && !facts.continuations.has(field.name));
  const model: Record<string, fc.Arbitrary<Json | undefined>> = {};
  for (const field of fields) {
    const known = fieldOf(base, field.location, field.name) ?? field.example;
    const value = validValue(run.spec, values, field.schema, field.location, known);
    // A field no valid value could be found for stays as the base request has it.
    if (!value) continue;
    model[`${field.location}/${field.name}`] = field.required ? value : fc.option(value, { nil: undefined, freq: 3 });
  }
  const bodyFields = fields.some((field) => field.location === 'body');
  const wholeBody = facts.body && !bodyFields ? validValue(run.spec, values, facts.body.schema, 'body', base.body) : undefined;
  return fc.record({ fields: fc.record(model), body: wholeBody ?? fc.constant(undefined) }).map(({ fields: chosen, body }) => {
    let input: RequestInput = body === undefined ? base : { ...base, body };
    for (const field of fields) {
      const key = `${field.location}/${field.name}`;
      if (key in model) input = withField(input, field.location, field.name, chosen[key]);
    }
    return input;
  });
}

/**
 * The deterministic walk before the random draws (Schemathesis' coverage phase): the base request with one
 * field set to each of its coverage values (`boundaries.ts`: a small domain whole, else its edges, `null`
 * where nullable), the fields taken in turn so every field's edges come first. A field of one alternative of
 * a `oneOf` body is set in a body of that alternative. A body that the value would make invalid is not sent.
 */
function coverageExamples(context: PhaseContext, facts: OperationFacts, base: RequestInput): RequestInput[] {
  const { spec } = context.run;
  const domains = facts.fields
    .filter((field) => field.location !== 'path' && !facts.continuations.has(field.name))
    .map((field) => ({
      field,
      start: field.branch === undefined ? base : { ...base, body: field.branch.body },
      values: coverageValues(spec, context.values, field.schema, field.location, context.options.seed),
    }))
    .filter(({ values }) => values.length > 0);
  const inputs: RequestInput[] = [];
  const longest = Math.max(0, ...domains.map(({ values }) => values.length));
  for (let index = 0; index < longest; index++) {
    for (const { field, start, values } of domains) {
      const value = values[index];
      if (value === undefined) continue;
      const input = withField(start, field.location, field.name, value);
      if (field.location === 'body' && facts.body && !context.values.isValid(facts.body.schema, input.body ?? null)) continue;
      inputs.push(input);
    }
  }
  return inputs;
}

/**
 * Why a write is not generated in volume, or undefined when it is (with `--allow-writes`, on a disposable
 * target): creates and changes are, each field at its edges (a PATCH with `tag: null`, a note at its
 * `maxLength`) and then at random; what makes or ends a credential, a delete, a write open to anyone in a
 * secured API and a write that carries a password are sent once each by the stateful phase instead, in the safe order of writes (twenty sign-ups,
 * or password changes by the dozen, would act on the run's own account).
 */
function writeNotInVolume(context: PhaseContext, role: WriteRole, facts: OperationFacts): string | undefined {
  if (role !== 'creates' && role !== 'changes')
    return `a write that ${role === 'deletes' ? 'deletes' : role === 'makes-credential' ? 'makes a credential' : 'may end the credential'}: the stateful phase sends it once, in the safe order of writes`;
  // Where the API has credentials, a write open to anyone is about them (a token request, a sign-up): its made-up client ids prove nothing.
  if (facts.operation.security.length === 0 && context.run.checks.credentials.schemes.size > 0)
    return 'a write open to anyone (security: []) in a secured API, such as a token request: the stateful phase sends it once';
  const secret = facts.fields.find((field) => field.location === 'body' && (field.resolved['format'] === 'password' || /pass(word|phrase)/i.test(field.name)));
  if (secret) return `a write that carries a password (${secret.name}): the stateful phase sends it once, under a throwaway account where there is one`;
  return undefined;
}

/**
 * The input with each path parameter no earlier answer gave (an item's id) set to one the run makes for it:
 * the create of the collection above (`POST /pets` for `PATCH /pets/{id}`), its example or smallest valid body,
 * and the id its answer holds. Without a create, the spec's example is sent, and a 404 for it is a documented
 * business answer.
 */
async function writeTarget(
  context: PhaseContext,
  tally: Tally,
  facts: OperationFacts,
  input: RequestInput,
): Promise<{ input: RequestInput } | { result: CaseResult }> {
  let next = input;
  for (const field of facts.fields.filter((candidate) => candidate.location === 'path')) {
    if (facts.live.some((value) => value.location === 'path' && value.name === field.name)) continue;
    const collection = facts.operation.path.slice(0, facts.operation.path.indexOf(`/{${field.name}}`));
    const create = context.facts.find(
      (candidate) =>
        candidate.operation.method === 'POST' && candidate.operation.path === collection && writeRole(context.run.spec, candidate.operation) === 'creates',
    );
    if (!create || create.blocked !== undefined) continue;
    const body = create.body ? (Object.values(create.body.examples)[0] ?? create.baseline.body) : undefined;
    const made = await tally.send({ ...create.baseline, ...(body !== undefined && { body }) }, {}, create.operation);
    const status = made.response?.status ?? 0;
    const answer = made.response ? parseJson(made.response.body) : undefined;
    const id = isObject(answer) ? (answer[field.name] ?? answer['id']) : undefined;
    if (status < 200 || status >= 300 || id === undefined || id === null)
      return { result: tally.skip(made, `could not make a ${field.name} to write to: ${create.operation.operationId} answered ${status || 'nothing'}`) };
    next = withField(next, 'path', field.name, id);
  }
  return { input: next };
}

/** What a generated request changed from the base, for the report: `limit=37, sort="desc"`. */
function describe(input: RequestInput, base: RequestInput): string {
  const changed: string[] = [];
  for (const part of ['query', 'headers'] as const) {
    for (const [name, value] of Object.entries(input[part]))
      if (JSON.stringify(base[part][name]) !== JSON.stringify(value)) changed.push(`${name}=${JSON.stringify(value)}`);
  }
  if (JSON.stringify(input.body) !== JSON.stringify(base.body)) changed.push(`body ${JSON.stringify(input.body)}`);
  return changed.length > 0 ? `valid request with ${changed.join(', ')}` : 'the minimal valid request';
}

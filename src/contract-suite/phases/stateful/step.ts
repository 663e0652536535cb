import type { OperationContract } from '../../../contract/operations.js';
import { isObject, type Json, type JsonObject } from '../../../contract/spec.js';
import type { RequestInput, SuiteCase } from '../../case.js';
import { checkExchange, parseJson } from '../../checks.js';
import { buildRequest, type Exchange } from '../../http.js';
import { documents, type OperationFacts } from '../../operation-facts.js';
import type { RunContext } from '../../run-context.js';
import type { Tally } from '../../tally.js';
import type { SchemaValues } from '../../values/schema-values.js';

const INPUT_ERRORS = new Set([400, 401, 413, 415, 422, 429]);
export const TOO_MANY_REQUESTS = 429;
export const GONE = [404, 410];

/** One request of a sequence, and what it showed. */
export interface Step {
  exchange: Exchange;
  status: number | undefined;
  body: Json | undefined;
  /** Why the request was not sent (its body does not validate against the spec); the step then has no answer. */
  unsent?: string;
}

/** What every request of a sequence is sent with: the run (whose credential is on the wire) and the validator of bodies. */
export interface Sender {
  run: RunContext;
  values: SchemaValues;
  tally: Tally;
  entry: SuiteCase;
}

/**
 * Sends one request of a sequence and checks its answer as any case's (status aside: what a step of a
 * sequence must answer is the sequence's to say). A body that does not validate against the operation's
 * schema is never sent: a finding about its answer would be about the suite's request, not the API.
 */
export async function step(sender: Sender, facts: OperationFacts, input: RequestInput, options: { label?: string } = {}): Promise<Step> {
  const { run, tally, entry } = sender;
  const label = options.label ?? facts.operation.operationId;
  if (facts.body && input.body !== undefined && !sender.values.isValid(facts.body.schema, input.body)) {
    const unsent = `${label}: not sent, the body the suite made does not validate against the operation's schema`;
    const exchange: Exchange = { request: buildRequest(run.transport, { operation: facts.operation, overrides: {} }, input), failure: unsent };
    tally.record(exchange, [{ category: 'note', message: unsent }]);
    return { exchange, status: undefined, body: undefined, unsent };
  }
  const exchange = await tally.send(input, {}, facts.operation);
  const status = exchange.response?.status;
  const findings = checkExchange(run.checks, { ...entry, operation: facts.operation, expectedStatus: status ?? 0 }, exchange, input).filter(
    (finding) => finding.category !== 'status',
  );
  if (findings.length > 0)
    tally.record(
      exchange,
      findings.map((finding) => ({ ...finding, message: `${label}: ${finding.message}` })),
    );
  return { exchange, status, body: exchange.response ? parseJson(exchange.response.body) : undefined };
}

/** A 429 is the service protecting itself, not a finding: the run says so and moves on. */
export function rateLimited(answered: Step): string {
  return `rate limited (429, Retry-After: ${answered.exchange.response?.headers.get('retry-after') ?? 'not sent'}): run again later`;
}

/** A documented 4xx that is about the resource's state, not the request's form (404, 409): a business answer. */
export function businessAnswer(operation: OperationContract, status: number): boolean {
  return status >= 400 && status < 500 && !INPUT_ERRORS.has(status) && documents(operation, status);
}

/**
 * A documented 4xx to a request whose values the suite made up (credentials in a form, ids it guessed): the
 * spec does not make a 2xx certain, so it is a note. Only where the spec's rules say the request's form is
 * valid for certain (`validation-422`) is a refusal of a valid body as malformed (400, 413, 415, 422) a finding.
 */
export function excusedRefusal(run: RunContext, operation: OperationContract, status: number): boolean {
  if (status < 400 || status >= 500 || status === TOO_MANY_REQUESTS || !documents(operation, status)) return false;
  const malformed = [400, 413, 415, 422].includes(status);
  return !(malformed && run.rules.has('validation-422'));
}

/** A body for a change: its fields with new values, so that a change that changes nothing shows. */
export function freshChange(values: SchemaValues, facts: OperationFacts): Json | undefined {
  const schema = facts.body?.schema;
  if (schema === undefined) return undefined;
  const base = facts.baseline.body;
  if (!isObject(base)) return base;
  const body: JsonObject = { ...base };
  // A PATCH or PUT whose minimal body is empty would change nothing: its optional text fields are sent too, so a change that is not kept shows.
  const replaces = facts.operation.method === 'PATCH' || facts.operation.method === 'PUT';
  for (const field of facts.fields) {
    if (field.location !== 'body' || field.resolved['type'] !== 'string' || field.resolved['enum'] !== undefined) continue;
    if (!(field.name in body) && !replaces) continue;
    const fresh = values.unguessable(field.schema);
    if (fresh !== undefined) body[field.name] = fresh;
  }
  return values.isValid(schema, body) ? body : base;
}

/** The operation's baseline with another body (when it takes one and there is one). */
export function withBody(facts: OperationFacts, body: Json | undefined): RequestInput {
  return body === undefined || !facts.body ? facts.baseline : { ...facts.baseline, body };
}

import type { Json } from '../../contract/spec.js';
import { fieldOf, withField } from '../case.js';
import { checkExchange, parseJson } from '../checks.js';
import type { OperationFacts } from '../operation-facts.js';
import { collectionOf, listedIds, ownedIn } from '../owned.js';
import type { CaseResult } from '../result.js';
import type { RunContext } from '../run-context.js';
import { Tally } from '../tally.js';
import { type Harvest, harvest } from '../values/schema-refs.js';
import { asCaller, type Phase, type PhaseContext, phaseCase } from './phase.js';
import { writeRole } from './write-order.js';

const FORBIDDEN = 403;
const NOT_FOUND = 404;
/** Components that name a resource (`ItemId`, `keyId`'s `KeyId`): what one user must not see of another's. */
const IDENTIFIER = /Id$/;

/**
 * Another user's credential, given beside the caller's own (credentials that must be refused are
 * the derived cases' `refused-credential`, `cases/authentication.ts`):
 * - another user's credential sees none of the caller's resources: no id the
 *   caller's answers held comes back in an answer to the other user, and a
 *   request for one of the caller's resources by id is a 403 or 404. What is the
 *   caller's is learned, never guessed: an id of an `*Id` component its answers
 *   held, or one its own list or create of the collection answered (`owned.ts`),
 *   of any type. Where nothing is known to be the caller's, nothing is expected.
 * A black-box tester can only catch "a revoked key accepted" or "another user's
 * items listed" when it holds such credentials: this phase is where it uses them.
 */
export const credentialsPhase: Phase = async (context) => {
  const results: CaseResult[] = [];
  for (const facts of context.facts) {
    if (context.run.checks.credentials.requirementOf(facts.operation) === undefined) continue;
    if (context.options.otherToken) results.push(await otherUser(context, facts, context.options.otherToken));
  }
  return results;
};

async function otherUser(context: PhaseContext, facts: OperationFacts, token: string): Promise<CaseResult> {
  const entry = phaseCase(facts, { family: 'other-user', title: "another user sees none of the caller's resources" });
  const run = as(context.run, token);
  const tally = new Tally(run, entry);
  if (facts.unsafe !== undefined) return tally.skip(undefined, facts.unsafe);
  const paths = facts.fields.filter((field) => field.location === 'path');
  // What the request names must be the caller's for certain: an id its own answers gave, by component or by collection.
  const mine = new Map(paths.map((field) => [field.name, callersId(context, facts, field.name, field.component)]));
  const known = [...mine.values()].every((id) => id !== undefined);
  // A write is sent with the other user's credential only to act on one of the caller's resources by id (it must be refused):
  // anything else would act on the other user's own account (sign them out, change their password).
  const role = writeRole(context.run.spec, facts.operation);
  if (role !== undefined && (paths.length === 0 || !known || role === 'makes-credential' || role === 'creates'))
    return tally.skip(undefined, "a write that names none of the caller's resources: not sent with another user's credential");
  if (paths.length > 0) {
    if (!known)
      return tally.skip(
        undefined,
        "nothing is known to be the caller's here: no answer to the caller (a list or a create of the collection) named one, so what the other user gets proves nothing",
      );
    // A request for one of the caller's resources, by the id the caller's answers gave, with the other user's credential.
    let input = facts.baseline;
    for (const [name, id] of mine) input = withField(input, 'path', name, id as Json);
    for (const value of facts.live.filter((live) => live.location !== 'path'))
      input = withField(input, value.location, value.name, context.run.harvest.get(value.component)?.[0] ?? fieldOf(input, value.location, value.name));
    const exchange = await tally.send(input);
    const status = exchange.response?.status;
    const findings = checkExchange(run.checks, { ...entry, expectedStatus: status ?? 0 }, exchange, input);
    if (status !== undefined && status < 300)
      findings.push({
        category: 'semantics',
        message: `another user's request for the caller's ${[...mine.values()].map((id) => JSON.stringify(id)).join(', ')} was answered ${status}, not ${FORBIDDEN} or ${NOT_FOUND}`,
      });
    return renamed(tally.finish(exchange, findings), '$OTHER_API_KEY');
  }
  const exchange = await tally.send(facts.baseline);
  const findings = checkExchange(run.checks, entry, exchange, facts.baseline);
  const response = exchange.response;
  const schema = response && facts.operation.responses[String(response.status)]?.content['application/json']?.schema;
  const body = response && parseJson(response.body);
  if (schema !== undefined && body !== undefined) {
    const seen: Harvest = new Map();
    harvest(context.run.spec, schema, body, seen);
    for (const [component, values] of seen) {
      if (!IDENTIFIER.test(component)) continue;
      const mine = new Set((context.run.harvest.get(component) ?? []).map(String));
      const leaked = values.filter((value: Json) => mine.has(String(value)));
      if (leaked.length > 0)
        findings.push({
          category: 'semantics',
          message: `another user was answered ${leaked.length} ${component} value${leaked.length === 1 ? '' : 's'} that the caller's own answers hold (${leaked.slice(0, 3).map(String).join(', ')})`,
        });
    }
  }
  if (response && response.status < 300 && body !== undefined && !findings.some((finding) => finding.category === 'semantics')) {
    // Ids of any type (an integer too) that the caller's own list of this collection showed: the other user's list must show none of them.
    const mine = new Set(ownedIn(context.run.harvest, facts.operation.path).map(String));
    const leaked = listedIds(context.run.spec, facts.operation.path, body).filter((id) => mine.has(String(id)));
    if (leaked.length > 0)
      findings.push({
        category: 'semantics',
        message: `another user's ${facts.operation.operationId} shows ${leaked.length} of the caller's own items (${leaked
          .slice(0, 3)
          .map((id) => JSON.stringify(id))
          .join(', ')})`,
      });
  }
  return renamed(tally.finish(exchange, findings), '$OTHER_API_KEY');
}

/** An id the caller's own answers gave for a path parameter: by its component (`ItemId`), else from a list or create of its collection. */
function callersId(context: PhaseContext, facts: OperationFacts, name: string, component: string | undefined): Json | undefined {
  const byComponent = component === undefined ? undefined : context.run.harvest.get(component)?.[0];
  if (byComponent !== undefined && facts.live.some((value) => value.name === name && value.component === component)) return byComponent;
  const collection = collectionOf(facts.operation.path, name);
  return collection === undefined ? undefined : ownedIn(context.run.harvest, collection)[0];
}

/** The run's context with another credential on the wire; what its answers hold is kept apart from the caller's harvest. */
function as(run: RunContext, token: string): RunContext {
  return { ...asCaller(run, token, '$OTHER_API_KEY'), harvest: new Map() };
}

/** Tally shows the credential on the wire as `$API_KEY`; here that credential is another one, so it gets its own name. */
function renamed(result: CaseResult, variable: string): CaseResult {
  const rename = (text: string) => text.replaceAll('$API_KEY', variable);
  return {
    ...result,
    ...(result.curl !== undefined && { curl: rename(result.curl) }),
    ...(result.request && {
      request: { ...result.request, headers: Object.fromEntries(Object.entries(result.request.headers).map(([name, value]) => [name, rename(value)])) },
    }),
  };
}

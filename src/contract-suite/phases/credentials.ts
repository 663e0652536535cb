import type { Json } from '../../contract/spec.js';
import { withField } from '../case.js';
import { checkExchange, parseJson } from '../checks.js';
import type { OperationFacts } from '../operation-facts.js';
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
 *   request for one of the caller's resources by id is a 403 or 404.
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
  const seen = facts.live.filter((value) => value.source === 'seen' && (context.run.harvest.get(value.component)?.length ?? 0) > 0);
  // A write is sent with the other user's credential only to act on one of the caller's resources by id (it must be refused):
  // anything else would act on the other user's own account (sign them out, change their password).
  const role = writeRole(context.run.spec, facts.operation);
  if (role !== undefined && (seen.length === 0 || role === 'makes-credential' || role === 'creates'))
    return tally.skip(undefined, "a write that names none of the caller's resources: not sent with another user's credential");
  if (seen.length > 0) {
    // A request for one of the caller's resources, by the id the caller's answers gave, with the other user's credential.
    let input = facts.baseline;
    for (const value of seen) input = withField(input, value.location, value.name, context.run.harvest.get(value.component)?.[0] as Json);
    const exchange = await tally.send(input);
    const status = exchange.response?.status;
    const findings = checkExchange(run.checks, { ...entry, expectedStatus: status ?? 0 }, exchange, input);
    if (status !== undefined && status < 300)
      findings.push({
        category: 'semantics',
        message: `another user's request for the caller's resource was answered ${status}, not ${FORBIDDEN} or ${NOT_FOUND}`,
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
  return renamed(tally.finish(exchange, findings), '$OTHER_API_KEY');
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

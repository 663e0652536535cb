import { randomBytes } from 'node:crypto';
import { isObject, type Json, type JsonObject } from '../../../contract/spec.js';
import { withField } from '../../case.js';
import type { OperationFacts } from '../../operation-facts.js';
import type { CaseResult } from '../../result.js';
import type { RunContext } from '../../run-context.js';
import { Tally } from '../../tally.js';
import { type PhaseContext, phaseCase } from '../phase.js';
import type { WriteRole } from '../write-order.js';
import { businessAnswer, excusedRefusal, freshChange, rateLimited, type Step, step, TOO_MANY_REQUESTS } from './step.js';
import type { Session } from './throwaway.js';

/**
 * A write the sequences did not send, sent once, in the safe order (`write-order.ts`): it must be accepted or
 * answered with a documented refusal of what the suite made up; one that ends the credential (a sign-out that
 * clears the cookie) must leave that credential refused afterwards.
 */
export async function oneWrite(
  context: PhaseContext,
  run: RunContext,
  facts: OperationFacts,
  role: WriteRole,
  session: Session,
): Promise<{ result: CaseResult; ended: boolean }> {
  const entry = phaseCase(facts, { family: 'write-effect', title: `one write, in the safe order (${role})` });
  const tally = new Tally(run, entry, { remember: false });
  const sender = { run, values: context.values, tally, entry };
  let input = facts.body
    ? { ...facts.baseline, body: withSecrets(freshChange(context.values, facts) ?? facts.baseline.body ?? {}, session.password) }
    : facts.baseline;
  for (const value of facts.live.filter((live) => live.source === 'seen')) {
    let seen = run.harvest.get(value.component)?.[0];
    if (seen === undefined) {
      // Read what the throwaway may list (its sessions, its keys): the ids a write acts on come from its own answers.
      for (const list of [...run.facts.values()].filter((other) => other.operation.method === 'GET' && other.success !== undefined && other.live.length === 0))
        await step(sender, list, list.baseline, { label: `${list.operation.operationId}, for a ${value.name}` });
      seen = run.harvest.get(value.component)?.[0];
    }
    if (seen === undefined) return { result: tally.skip(undefined, `no ${value.name} seen in the run's answers to act on`), ended: false };
    input = withField(input, value.location, value.name, seen);
  }
  const done = await step(sender, facts, input);
  if (done.unsent !== undefined) return { result: tally.skip(done.exchange, done.unsent), ended: false };
  if (done.status === undefined) return { result: tally.result(), ended: false };
  if (done.status === TOO_MANY_REQUESTS) return { result: tally.skip(done.exchange, rateLimited(done)), ended: false };
  if (done.status >= 300) {
    // Its values are the suite's own (a made-up client secret, a guessed id): a documented refusal of them is no proof of a bug.
    const excused = excusedRefusal(run, facts.operation, done.status);
    if (!excused) tally.record(done.exchange, [{ category: 'status', message: `a valid write was answered ${done.status}` }]);
    const why = businessAnswer(facts.operation, done.status)
      ? ', a documented answer about the state of what it acts on'
      : excused
        ? ', documented for values the suite made up (credentials, ids): a note, not a violation'
        : '';
    return { result: tally.result(`answered ${done.status}${why}`), ended: false };
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
      const after = await step(sender, read, read.baseline, { label: `${read.operation.operationId} with the ended credential` });
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
export function withSecrets(body: Json, password: string | undefined): Json {
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

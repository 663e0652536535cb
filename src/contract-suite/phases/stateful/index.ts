import { Tally } from '../../tally.js';
import type { Phase } from '../phase.js';
import { phaseCase } from '../phase.js';
import { inWriteOrder } from '../write-order.js';
import { resourceSequence } from './lifecycle.js';
import { followLinks } from './links.js';
import { oneWrite } from './one-write.js';
import { resourceGroups } from './resource-group.js';
import { throwawayAccount } from './throwaway.js';

/**
 * The stateful phase: sequences of requests where each uses what an earlier answer gave, one sequence per file:
 * - `links.ts`: OpenAPI links of 2xx answers, followed;
 * - `lifecycle.ts`: create → read → change → read → delete → read on each collection (`resource-group.ts`), with
 *   another user's credential kept out of what the caller made (`ownership.ts`);
 * - `one-write.ts`: the other writes once each, in the order of `write-order.ts`; where the spec has a sign-up,
 *   under a throwaway account made for the run (`throwaway.ts`).
 * Every request goes through `step.ts`, which sends no body that does not validate against the spec.
 * Writes only with `allowWrites`; against a target that keeps no state (`stateless`), nothing is read back.
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
    results.push(...(await resourceSequence(context, run, group)));
    for (const facts of [group.create, ...group.items, ...group.subCreates]) done.add(facts.operation.operationId);
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

import type { CaseDraft, Derived } from '../case.js';
import type { FamilyContext } from './family.js';

/**
 * The smallest valid request: required fields only, path parameters taken from
 * earlier answers. Every operation that documents a success gets it, so even an
 * operation with no examples and no fields has a positive case. A body with
 * alternatives (`oneOf`, `anyOf`) gets one per alternative, its discriminator
 * value set: a server that dispatches on it must accept each.
 */
export function minimalRequest({ facts, values }: FamilyContext): Derived {
  if (facts.success === undefined) return { cases: [], notes: ['no positive case: the operation documents no 2xx answer'] };
  const seen = facts.live.filter((value) => value.source === 'seen').map((value) => value.name);
  const title = seen.length > 0 ? `minimal valid request (${seen.join(', ')} from an earlier answer)` : 'minimal valid request';
  const base = { polarity: 'positive', family: 'minimal-request', location: 'body', expectedStatus: facts.success, live: facts.live } as const;
  const cases: CaseDraft[] = [{ ...base, key: '', title, input: facts.baseline }];
  const branches = facts.body && facts.baseline.body !== undefined ? values.branches(facts.body.schema) : [];
  if (branches.length > 1)
    for (const branch of branches)
      cases.push({ ...base, key: `branch ${branch.label}`, title: `${title}, the body as ${branch.label}`, input: { ...facts.baseline, body: branch.value } });
  return { cases };
}

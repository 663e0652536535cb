import type { Derived } from '../case.js';
import type { FamilyContext } from './family.js';

/**
 * The smallest valid request: required fields only, path parameters taken from
 * earlier answers. Every operation that documents a success gets it, so even an
 * operation with no examples and no fields has a positive case.
 */
export function minimalRequest({ facts }: FamilyContext): Derived {
  if (facts.success === undefined) return { cases: [], notes: ['no positive case: the operation documents no 2xx answer'] };
  const seen = facts.live.filter((value) => value.source === 'seen').map((value) => value.name);
  const title = seen.length > 0 ? `minimal valid request (${seen.join(', ')} from an earlier answer)` : 'minimal valid request';
  return {
    cases: [
      {
        key: '',
        polarity: 'positive',
        family: 'minimal-request',
        location: 'body',
        title,
        expectedStatus: facts.success,
        input: facts.baseline,
        live: facts.live,
      },
    ],
  };
}

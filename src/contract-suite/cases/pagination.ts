import { type Derived, withField } from '../case.js';
import type { FamilyContext } from './family.js';

/**
 * List operations only (a page with `items` and `nextCursor`, and a cursor to
 * send back): a walk over every page, compared with one big page.
 */
export function pagination({ facts }: FamilyContext): Derived {
  const list = facts.list;
  if (!list?.cursor || facts.success === undefined) return { cases: [] };
  // Two a page, so even a short list spans several pages.
  const limit = Math.max(list.minLimit, Math.min(2, list.maxLimit));
  return {
    cases: [
      {
        key: '',
        polarity: 'positive',
        family: 'pagination',
        location: list.location,
        title: `walk every page (limit ${limit}) and compare with one big page`,
        expectedStatus: facts.success,
        input: withField(facts.baseline, list.location, 'limit', limit),
        live: facts.live,
        walk: { limit },
      },
    ],
  };
}

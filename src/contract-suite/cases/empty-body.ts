import { isJsonMediaType } from '../../contract/media-types.js';
import type { CaseDraft, Derived } from '../case.js';
import { documents } from '../operation-facts.js';
import type { FamilyContext } from './family.js';

const BAD_REQUEST = 400;

/**
 * An empty body, the request a crashed or careless client sends most often, derived for every operation that
 * takes a JSON body (not left to the property phase's draw, where it is one mutation among many):
 * - a required body sent empty (`Content-Type: application/json`, zero bytes) is invalid, so any documented 4xx
 *   is right, and a 5xx or a 2xx is not;
 * - an optional body left out is a valid request (OpenAPI 3 §4.8.13: `required: false`), so it must be accepted.
 */
export function emptyBody({ facts }: FamilyContext): Derived {
  const { operation } = facts;
  if (!facts.body || !isJsonMediaType(facts.body.mediaType)) return { cases: [] };
  const cases: CaseDraft[] = [];
  if (operation.requestBody?.required) {
    const clientErrors = Object.keys(operation.responses).filter((status) => /^4(\d\d|XX)$/.test(status) && status !== '401' && status !== '429');
    if (clientErrors.length === 0) return { cases: [], notes: ['an empty body is not tried: the operation documents no 4xx to refuse it with'] };
    cases.push({
      key: '',
      polarity: 'negative',
      family: 'empty-body',
      location: 'body',
      title: 'an empty body where one is required',
      expectedStatus: documents(operation, BAD_REQUEST) ? BAD_REQUEST : Number(clientErrors[0]?.replace('XX', '00')),
      anyClientError: true,
      input: facts.baseline,
      live: facts.live,
      overrides: { body: '' },
    });
  } else if (facts.success !== undefined) {
    const { body: _left, ...input } = facts.baseline;
    cases.push({
      key: '',
      polarity: 'positive',
      family: 'empty-body',
      location: 'body',
      title: 'no body, which the operation makes optional',
      expectedStatus: facts.success,
      input,
      live: facts.live,
      overrides: {},
    });
  }
  return { cases };
}

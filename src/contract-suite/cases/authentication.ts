import { generateApiKey } from '../../keys/api-key.js';
import type { CaseDraft, Derived, Family } from '../case.js';
import { documents } from '../operation-facts.js';
import type { FamilyContext } from './family.js';

/** A well-formed `Basic` credential that is not the caller's key. */
const BASIC_CREDENTIALS = `Basic ${btoa('contract-suite:not-a-bearer-token')}`;
const UNAUTHORIZED = 401;

/**
 * For a secured operation, five ways to present no valid credential, each
 * expecting the documented 401. The rest of the request is valid, so the
 * credential is the only reason to refuse it. A refused request does nothing,
 * so these run for operations that write too.
 */
export function authentication({ facts }: FamilyContext): Derived {
  if (facts.operation.security.length === 0) return { cases: [] };
  if (!documents(facts.operation, UNAUTHORIZED)) return { cases: [], notes: ['no authentication case: the operation is secured but documents no 401'] };
  const credentials: Array<[Family, string, string | null]> = [
    ['no-authorization', 'no Authorization header', null],
    ['other-scheme', 'another scheme (Basic)', BASIC_CREDENTIALS],
    ['empty-bearer', 'empty bearer token', 'Bearer '],
    ['malformed-key', 'malformed key (bad checksum)', `Bearer tka_${'0'.repeat(38)}`],
    // A fresh, well-formed key: 190 random bits, so it cannot belong to anyone.
    ['unknown-key', 'unknown key (well-formed)', `Bearer ${generateApiKey().key}`],
  ];
  const cases = credentials.map(
    ([family, title, authorization]): CaseDraft => ({
      key: '',
      polarity: 'negative',
      family,
      location: 'header',
      title,
      expectedStatus: UNAUTHORIZED,
      input: facts.baseline,
      live: facts.live,
      overrides: { authorization },
    }),
  );
  return { cases };
}

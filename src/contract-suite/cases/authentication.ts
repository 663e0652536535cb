import { generateApiKey } from '../../keys/api-key.js';
import type { CaseDraft, Derived, Family, RequestOverrides } from '../case.js';
import type { Scheme } from '../credentials.js';
import { documents, type OperationFacts } from '../operation-facts.js';
import type { FamilyContext } from './family.js';

const UNAUTHORIZED = 401;

/** The family, the title, how the request differs, and what tells it from others of its family in its id. */
type Attempt = [Family, string, RequestOverrides, string?];

/**
 * For a secured operation, the ways to present no valid credential, each expecting
 * the documented 401, by the kind of its (first) security scheme: none at all,
 * another scheme, an empty value, an unknown well-formed one, a malformed one (under
 * the rule `credential-format`), and each credential the run was told must be
 * refused (`--refused-credential`: a revoked or expired key). The rest of the request
 * is valid, so the credential is the only reason to refuse it. A refused request does
 * nothing, so these run for operations that write too.
 */
export function authentication({ facts, credentials, rules }: FamilyContext): Derived {
  const requirement = credentials.requirementOf(facts.operation);
  if (requirement === undefined) return { cases: [] };
  if (!documents(facts.operation, UNAUTHORIZED)) return { cases: [], notes: ['no authentication case: the operation is secured but documents no 401'] };
  const scheme = requirement.schemes[0];
  if (scheme === undefined || scheme.kind === 'unsupported') return { cases: [], notes: requirement.missing };
  const formatted = rules.has('credential-format');
  const attempts = attemptsFor(scheme, formatted).filter(([family]) => family !== 'malformed-key' || formatted);
  for (const [index, refused] of credentials.refused.entries()) {
    if (!requirement.schemes.some((candidate) => candidate.name === refused.scheme)) continue;
    const key = `${refused.scheme}#${index + 1}`;
    attempts.push(['refused-credential', `refused credential ${key} (--refused-credential)`, { credentials: refused }, key]);
  }
  return { cases: attempts.map(([family, title, overrides, key]) => ({ ...refusedCase(facts, family, title, overrides), key: key ?? '' })) };
}

function attemptsFor(scheme: Exclude<Scheme, { kind: 'unsupported' }>, formatted: boolean): Attempt[] {
  const unknown = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const own = (value: string): RequestOverrides => ({ credentials: { scheme: scheme.name, value } });
  switch (scheme.kind) {
    case 'bearer':
      return [
        ['no-authorization', 'no Authorization header', { credentials: 'none' }],
        ['other-scheme', 'another scheme (Basic)', { credentials: 'none', authorization: `Basic ${btoa('contract-suite:not-a-bearer-token')}` }],
        ['empty-bearer', 'empty bearer token', { credentials: 'none', authorization: 'Bearer ' }],
        ['malformed-key', 'malformed key (bad checksum)', own(`tka_${'0'.repeat(38)}`)],
        // Well-formed and random (190 or 256 bits), so it cannot belong to anyone.
        ['unknown-key', 'unknown key (well-formed)', own(formatted ? generateApiKey().key : unknown)],
      ];
    case 'basic':
      return [
        ['no-authorization', 'no Authorization header', { credentials: 'none' }],
        ['other-scheme', 'another scheme (Bearer)', { credentials: 'none', authorization: `Bearer ${unknown}` }],
        ['empty-bearer', 'empty Basic credentials', { credentials: 'none', authorization: 'Basic ' }],
        ['unknown-key', 'unknown user and password', own(`contract-suite-${unknown.slice(0, 8)}:${unknown}`)],
      ];
    case 'apiKey': {
      const where = scheme.in === 'cookie' ? `${scheme.key} cookie` : scheme.in === 'header' ? `${scheme.key} header` : `${scheme.key} query parameter`;
      const cookie = scheme.in === 'cookie';
      return [
        ['no-authorization', `no ${where}`, cookie ? { credentials: 'none', cookie: null } : { credentials: 'none' }],
        ['other-scheme', `a bearer token instead of the ${where}`, { credentials: 'none', authorization: `Bearer ${unknown}` }],
        ['empty-bearer', `empty ${where}`, own('')],
        ['malformed-key', `malformed ${where}`, own(cookie ? 'not-a-session' : `tka_${'0'.repeat(38)}`)],
        ['unknown-key', `unknown ${where} (well-formed)`, own(formatted && !cookie ? generateApiKey().key : unknown)],
      ];
    }
  }
}

/** A request that is valid but for its credential, expecting the documented 401. */
function refusedCase(facts: OperationFacts, family: Family, title: string, overrides: RequestOverrides): CaseDraft {
  return { key: '', polarity: 'negative', family, location: 'header', title, expectedStatus: UNAUTHORIZED, input: facts.baseline, live: facts.live, overrides };
}

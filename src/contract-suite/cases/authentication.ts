import { generateApiKey } from '../../keys/api-key.js';
import type { CaseDraft, Derived, Family } from '../case.js';
import { placementOf } from '../credentials.js';
import { documents, type OperationFacts } from '../operation-facts.js';
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
export function authentication({ spec, facts }: FamilyContext): Derived {
  if (facts.operation.security.length === 0) return { cases: [] };
  if (!documents(facts.operation, UNAUTHORIZED)) return { cases: [], notes: ['no authentication case: the operation is secured but documents no 401'] };
  const placement = placementOf(spec, facts.operation);
  if (placement?.kind === 'cookie') return { cases: cookieCases(facts, placement.name) };
  const credentials: Array<[Family, string, string | null]> = [
    ['no-authorization', 'no Authorization header', null],
    ['other-scheme', 'another scheme (Basic)', BASIC_CREDENTIALS],
    ['empty-bearer', 'empty bearer token', 'Bearer '],
    ['malformed-key', 'malformed key (bad checksum)', `Bearer tka_${'0'.repeat(38)}`],
    // A fresh, well-formed key: 190 random bits, so it cannot belong to anyone.
    ['unknown-key', 'unknown key (well-formed)', `Bearer ${generateApiKey().key}`],
  ];
  return { cases: credentials.map(([family, title, authorization]) => refusedCase(facts, family, title, { authorization })) };
}

/** A request that is valid but for its credential, expecting the documented 401. */
function refusedCase(facts: OperationFacts, family: Family, title: string, overrides: NonNullable<CaseDraft['overrides']>): CaseDraft {
  return { key: '', polarity: 'negative', family, location: 'header', title, expectedStatus: UNAUTHORIZED, input: facts.baseline, live: facts.live, overrides };
}

/**
 * The same five ways for an operation under a cookie scheme (a session): no
 * cookie, a bearer token instead, an empty value, a malformed one, and a
 * well-formed token (256 random bits, base64url) that no session has.
 */
function cookieCases(facts: OperationFacts, name: string): CaseDraft[] {
  const unknown = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const credentials: Array<[Family, string, { cookie: string | null; authorization?: string }]> = [
    ['no-authorization', `no ${name} cookie`, { cookie: null }],
    ['other-scheme', 'a bearer token instead of the cookie', { cookie: null, authorization: `Bearer ${unknown}` }],
    ['empty-bearer', `empty ${name} cookie`, { cookie: `${name}=` }],
    ['malformed-key', `malformed ${name} cookie`, { cookie: `${name}=not-a-session` }],
    ['unknown-key', `unknown ${name} cookie (well-formed)`, { cookie: `${name}=${unknown}` }],
  ];
  return credentials.map(([family, title, overrides]) => refusedCase(facts, family, title, overrides));
}

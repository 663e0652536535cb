import { generateApiKey } from '../../keys/api-key.js';
import type { CaseDraft, Derived, Family, RequestOverrides } from '../case.js';
import type { Scheme } from '../credentials.js';
import { documents, type OperationFacts } from '../operation-facts.js';
import { schemesOf, securityAlternatives } from '../security-alternatives.js';
import type { FamilyContext } from './family.js';

const UNAUTHORIZED = 401;

/** The family, the title, how the request differs, and what tells it from others of its family in its id. */
type Attempt = [Family, string, RequestOverrides, string?];

/**
 * For a secured operation, the ways to present no valid credential, each expecting
 * the documented 401, by the kind of its security scheme: none at all, another
 * scheme, an empty value, an unknown well-formed one, a malformed one (under the rule
 * `credential-format`), and each credential the run was told must be refused
 * (`--refused-credential`: a revoked or expired key). The rest of the request is
 * valid, so the credential is the only reason to refuse it. A refused request does
 * nothing, so these run for operations that write too.
 *
 * Every alternative of the operation's `security` (a bearer token OR a query key OR a
 * cookie key) gets its own: the alternative alone, with a valid credential (accepted)
 * and with an empty, malformed or unknown one for each of its schemes (refused), so a
 * server that lets any query key in is found even though the bearer token comes first.
 */
export function authentication({ facts, credentials, rules }: FamilyContext): Derived {
  const requirement = credentials.requirementOf(facts.operation);
  if (requirement === undefined) return { cases: [] };
  if (!documents(facts.operation, UNAUTHORIZED)) return { cases: [], notes: ['no authentication case: the operation is secured but documents no 401'] };
  const formatted = rules.has('credential-format');
  const chosen = requirement.schemes.map((scheme) => scheme.name);
  const others = securityAlternatives(facts.operation).filter((names) => names.join('+') !== chosen.join('+'));
  const cases: CaseDraft[] = [];
  const notes: string[] = [];
  const scheme = requirement.schemes[0];
  if (scheme === undefined || scheme.kind === 'unsupported') notes.push(...requirement.missing);
  else {
    const attempts = attemptsFor(scheme, formatted).filter(([family]) => family !== 'malformed-key' || formatted);
    // The other schemes presented with it (an API key AND a client id): each refused alone, the others valid.
    for (const other of requirement.schemes.slice(1)) attempts.push(...replacements(other, formatted, [], other.name));
    cases.push(...attempts.map(([family, title, overrides, key]) => ({ ...refusedCase(facts, family, title, overrides), key: key ?? '' })));
  }
  for (const names of others) {
    const label = names.join('+');
    const schemes = schemesOf(credentials, names);
    const unsupported = schemes.filter((candidate) => candidate.kind === 'unsupported');
    if (unsupported.length > 0) {
      notes.push(`security alternative ${label} not tried: the suite cannot present ${unsupported.map((candidate) => candidate.name).join(', ')}`);
      continue;
    }
    const missing = names.filter((name) => credentials.valueOf(name) === undefined);
    if (missing.length > 0)
      notes.push(
        `security alternative ${label} tried with refused credentials only: no credential for ${missing.join(', ')} (give --credential ${missing[0]}=<value>)`,
      );
    else if (facts.success !== undefined)
      cases.push({
        key: `security ${label}`,
        polarity: 'positive',
        family: 'minimal-request',
        location: 'header',
        title: `minimal valid request with the security alternative ${label} alone`,
        expectedStatus: facts.success,
        input: facts.baseline,
        live: facts.live,
        overrides: { security: names },
      });
    for (const one of schemes) {
      if (one.kind === 'unsupported') continue;
      const attempts = replacements(one, formatted, names, label === one.name ? one.name : `${label} ${one.name}`);
      cases.push(...attempts.map(([family, title, overrides, key]) => ({ ...refusedCase(facts, family, title, overrides), key: key ?? '' })));
    }
  }
  for (const [index, refused] of credentials.refused.entries()) {
    const own = requirement.schemes.some((candidate) => candidate.name === refused.scheme);
    const other = own ? undefined : others.find((names) => names.includes(refused.scheme));
    if (!own && other === undefined) continue;
    const key = `${refused.scheme}#${index + 1}`;
    const overrides: RequestOverrides = { credentials: refused, ...(other && { security: other }) };
    cases.push({ ...refusedCase(facts, 'refused-credential', `refused credential ${key} (--refused-credential)`, overrides), key });
  }
  return { cases, notes };
}

/**
 * One scheme's credential replaced by an empty, a malformed (under `credential-format`) and an unknown
 * well-formed value, the other schemes of `alternative` valid; `alternative` empty means the run's default one.
 */
function replacements(scheme: Scheme, formatted: boolean, alternative: string[], key: string): Attempt[] {
  if (scheme.kind === 'unsupported') return [];
  const security = alternative.length > 0 ? { security: alternative } : {};
  const own = (value: string): RequestOverrides => ({ credentials: { scheme: scheme.name, value }, ...security });
  const where = describeScheme(scheme);
  const unknown = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const cookie = scheme.kind === 'apiKey' && scheme.in === 'cookie';
  const attempts: Attempt[] = [
    ['empty-bearer', `empty ${where}`, own(''), key],
    [
      'unknown-key',
      `unknown ${where} (well-formed)`,
      own(scheme.kind === 'basic' ? `contract-suite-${unknown.slice(0, 8)}:${unknown}` : formatted && !cookie ? generateApiKey().key : unknown),
      key,
    ],
  ];
  if (formatted && scheme.kind !== 'basic')
    attempts.splice(1, 0, ['malformed-key', `malformed ${where}`, own(cookie ? 'not-a-session' : `tka_${'0'.repeat(38)}`), key]);
  return attempts;
}

function describeScheme(scheme: Exclude<Scheme, { kind: 'unsupported' }>): string {
  if (scheme.kind === 'bearer') return `bearer token (${scheme.name})`;
  if (scheme.kind === 'basic') return `Basic credentials (${scheme.name})`;
  return scheme.in === 'cookie' ? `${scheme.key} cookie` : scheme.in === 'header' ? `${scheme.key} header` : `${scheme.key} query parameter`;
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

/**
 * THE ONE PLACE where the mock (`npm run mock`: Prism behind the edge of
 * `src/mock/edge.ts`, which words Prism's errors as the contract does) may
 * legitimately answer differently from the implementation. Every entry names the cases it covers, the kind of finding it
 * excuses, and why the difference is inherent to a mock rather than a bug.
 * Everything not listed here must agree: the suite fails on any other finding,
 * and the tests check that both processes answer each case with the same status
 * unless an entry here explains it, and that every entry is still needed.
 *
 * Against the implementation (or any deployment) nothing is excused.
 */
import type { Family, Location, SuiteCase } from './case.js';
import type { Category } from './checks.js';

/**
 * What the suite is pointed at: the implementation or a deployment of it, the Prism mock of the spec (examples
 * only), or the stateful mock (`npm run mock -- --stateful`: Prism behind the edge that remembers, `src/mock/stateful/`).
 */
export type Target = 'implementation' | 'prism' | 'stateful-mock';

export interface KnownDifference {
  id: string;
  target: Target;
  /** The cases it applies to. */
  families: Family[];
  /** Only cases whose options or fault lie here (all when absent). */
  location?: Location;
  /** The findings it excuses; any other finding still fails. */
  excuses: Category[];
  reason: string;
}

const PRISM_DIFFERENCES: readonly KnownDifference[] = [
  {
    id: 'prism-accepts-any-token',
    target: 'prism',
    families: ['malformed-key', 'unknown-key'],
    excuses: ['status'],
    reason:
      'Prism checks that an `Authorization: Bearer <token>` header (or the session cookie of the account API) is present, never the token itself, ' +
      'so a malformed or unknown key or session gets 200 and an example. The implementation looks it up and answers 401. ' +
      '(No header, another scheme and an empty token get 401 from both.)',
  },
  {
    id: 'prism-ignores-unknown-query-parameters',
    target: 'prism',
    families: ['unknown-field'],
    location: 'query',
    excuses: ['status'],
    reason:
      'OpenAPI has no keyword that closes a query string (there is no additionalProperties for parameters), so Prism validates only the declared ' +
      'parameters and answers 200. The rule "unknown query parameters are rejected with 422" is in the spec text, which the implementation follows.',
  },
  {
    id: 'prism-drops-empty-query-values',
    target: 'prism',
    families: ['too-short'],
    location: 'query',
    excuses: ['status'],
    reason:
      'Prism removes query parameters with an empty value before it validates them (its params validator filters the values with lodash ' +
      '`pickBy`, which drops ""), so `?cursor=` counts as no cursor and gets 200. The spec forbids it twice (`minLength: 1`, and ' +
      '`allowEmptyValue` defaults to false), and the implementation answers 422.',
  },
  {
    id: 'prism-static-examples-ignore-options',
    target: 'prism',
    families: ['example', 'field-values', 'pagination', 'property-valid'],
    excuses: ['semantics'],
    reason:
      'In static mode Prism answers with a named example whatever `sort`, `limit` and `cursor` say: `sort=desc` gets the ascending example, ' +
      'following `nextCursor` returns the first page again, and so every value of a field gives the same answer (which against the implementation ' +
      'is the finding "accepted but ignored"). Order, page size, the pagination walk and a field\'s effect are behaviour only the implementation has.',
  },
  {
    id: 'prism-no-body-limit',
    target: 'prism',
    families: ['body-too-large'],
    excuses: ['status'],
    reason:
      'The body limit is the spec extension `x-limits.maxBodyBytes`, which only the implementation reads; Prism parses a body of any size and ' +
      'answers a valid one (padded with whitespace past the limit) with 200 and an example instead of 413.',
  },
  {
    id: 'prism-every-id-exists',
    target: 'prism',
    families: ['unknown-id'],
    excuses: ['status'],
    reason:
      'Prism has no data: it answers a well-formed path parameter with the 200 example whatever its value, so an id that cannot exist gets 200, ' +
      'not the documented 404. Malformed ids are still refused with 422, as the implementation refuses them.',
  },
];

/**
 * The stateful mock (`src/mock/stateful/`) answers only after Prism has validated the request, so Prism's own
 * differences in what it accepts stay. Those about data (every id exists, the options change nothing) are gone
 * for the operations whose effect it infers, and stay for those it leaves to Prism's examples. Each is listed
 * again under its own id, for the target `stateful-mock`, with why it stays.
 */
const KEPT_BEHIND_THE_STATEFUL_MOCK = new Map([
  ['prism-accepts-any-token', 'Prism validates every request before the stateful mock answers it, so as for Prism alone'],
  ['prism-ignores-unknown-query-parameters', 'Prism validates every request before the stateful mock answers it, so as for Prism alone'],
  ['prism-drops-empty-query-values', 'Prism validates every request before the stateful mock answers it, so as for Prism alone'],
  ['prism-no-body-limit', 'Prism validates every request before the stateful mock answers it, so as for Prism alone'],
  [
    'prism-static-examples-ignore-options',
    "Only for the operations the stateful mock leaves to Prism's examples (its start message lists them: the account API's key events, and the public API's lists, which no create fills)",
  ],
  [
    'prism-every-id-exists',
    "Only for the operations the stateful mock leaves to Prism's examples (the account API's sessions, which the mock does not keep); a stored resource's unknown id gets 404",
  ],
]);

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  ...PRISM_DIFFERENCES,
  ...PRISM_DIFFERENCES.flatMap((difference): KnownDifference[] => {
    const why = KEPT_BEHIND_THE_STATEFUL_MOCK.get(difference.id);
    if (why === undefined) return [];
    return [{ ...difference, id: difference.id.replace(/^prism-/, 'stateful-mock-'), target: 'stateful-mock', reason: `${why}: ${difference.reason}` }];
  }),
];

/** The known differences that excuse `category` findings of this case on this target. */
export function excusesFor(target: Target, entry: Pick<SuiteCase, 'family' | 'location'>, category: Category): KnownDifference | undefined {
  return KNOWN_DIFFERENCES.find(
    (difference) =>
      difference.target === target &&
      difference.families.includes(entry.family) &&
      (difference.location === undefined || difference.location === entry.location) &&
      difference.excuses.includes(category),
  );
}

/**
 * Differences outside the suite's cases: what the mock answers to requests that are about the mock or the
 * browser rather than an operation (a mock-only header, a preflight, another site's request), probed on
 * both by `test/mock/mock-vs-server.slow.test.ts`. The test fails on a difference not listed here, and on
 * one listed that no longer occurs.
 */
export interface ProbeDifference {
  /** The probe's id in the test. */
  probe: string;
  reason: string;
}

export const PROBE_DIFFERENCES: readonly ProbeDifference[] = [
  {
    probe: 'main: Prefer code=429',
    reason:
      'Prefer (RFC 7240) is how a frontend asks the mock for an example or a status; the server ignores it, as the RFC asks of a preference it ' +
      'does not support, and answers as it would without it. The mock says it applied one (Preference-Applied), and the client warns in ' +
      'development when an answer does not.',
  },
  {
    probe: 'main: preflight from another origin',
    reason:
      "The public mock allows any origin (Prism's permissive CORS), so a dev server on any port can call it; the server allows only the origins " +
      'of CORS_ORIGINS (none by default). docs/mock-and-client.md says so.',
  },
  {
    probe: 'main: read from another origin',
    reason: 'As for the preflight: the mock answers any origin with Access-Control-Allow-Origin, the server only the origins of CORS_ORIGINS.',
  },
  {
    probe: "account: a new user's keys",
    reason:
      "The stateful mock starts every caller's world with the spec's example items (the three example keys), so a page has something to show " +
      'before anything was made; a new user of the server has no keys. `POST /api/__mock/reset` does not change that: it starts every world again.',
  },
  {
    probe: 'account: an active key removed, a revoked key rolled',
    reason:
      "The stateful mock infers create, read, change and delete from the spec's shapes, not the business rules its prose states: it removes an " +
      'active key (the server answers 409, "revoke it first"), and rolls a key in any state it still holds (the server answers 409 for a revoked one). ' +
      'Their 409 examples stay reachable with `Prefer: code=409`.',
  },
];

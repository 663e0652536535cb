/**
 * The corpus that keeps the contract suite honest (issue 31, point 7): three reference servers of our own,
 * each with its spec, run correct (no violation allowed) and with one planted bug at a time (each caught by
 * a check whose family names it), as a team would run the suite on its own API.
 */
import type { Family } from '../../../src/contract-suite/case.js';
import { CATALOG_BUGS, CATALOG_KEY, CATALOG_SPEC, type CatalogBug, catalogServer } from './catalog.js';
import type { ReferenceRun } from './harness.js';
import { PETS_BUGS, PETS_SPEC, PETS_USERS, type PetsBug, petsServer } from './pets.js';
import { REPORTS_BUGS, REPORTS_SPEC, REPORTS_USERS, type ReportsBug, reportsServer } from './reports.js';

export interface ReferenceServer {
  name: string;
  /** The suite's run against the server, correct or with one bug planted. */
  run: (bug?: string) => Promise<ReferenceRun>;
  bugs: Record<string, { description: string; caughtBy: Family[] }>;
}

const { alice, bob } = REPORTS_USERS;

export const CORPUS: ReferenceServer[] = [
  {
    name: 'pets',
    run: async (bug) => ({ spec: PETS_SPEC, fetch: await petsServer(bug as PetsBug | undefined), token: PETS_USERS.alice, otherToken: PETS_USERS.bob }),
    bugs: caughtBy(PETS_BUGS, {
      'no-auth-accepted': ['no-authorization'],
      'bola-read': ['other-user'],
      'bola-list': ['other-user', 'minimal-request'],
      'use-after-free': ['stateful'],
      'rename-ignored': ['stateful'],
      'empty-body-500': ['empty-body'],
      'create-200': ['stateful'],
      'note-500': ['stateful'],
      'limit-37-500': ['property-valid', 'field-values'],
      'tag-null-500': ['stateful', 'property-valid', 'field-values'],
      'long-note-500': ['stateful', 'property-valid', 'field-values'],
      'oneof-optional-dropped': ['stateful'],
      'writeonly-echoed': ['minimal-request', 'stateful'],
    }),
  },
  {
    name: 'reports',
    run: async (bug) => ({
      spec: REPORTS_SPEC,
      fetch: reportsServer(bug as ReportsBug | undefined),
      credentials: { oauth2: alice.oauth2, queryKey: alice.queryKey, cookieKey: alice.cookieKey },
      otherToken: bob.oauth2,
    }),
    bugs: caughtBy(REPORTS_BUGS, {
      'any-query-key': ['unknown-key', 'empty-bearer', 'refused-credential'],
      'no-auth-accepted': ['no-authorization'],
      'bola-report': ['other-user'],
      'unknown-report-500': ['unknown-id'],
      'token-500-without-grant': ['missing-required'],
      'report-total-as-text': ['minimal-request'],
    }),
  },
  {
    name: 'catalog',
    run: async (bug) => ({ spec: CATALOG_SPEC, fetch: catalogServer(bug as CatalogBug | undefined), token: CATALOG_KEY }),
    bugs: caughtBy(CATALOG_BUGS, {
      'offset-ignored': ['field-values'],
      'limit-ignored': ['field-values'],
      'category-ignored': ['field-values'],
      'limit-over-maximum-accepted': ['over-maximum'],
      'unknown-sku-500': ['unknown-id'],
      'total-as-text': ['minimal-request'],
    }),
  },
];

/**
 * Planted bugs the suite cannot catch yet, by id (`pets/tag-null-500`). The test asserts this set exactly: a bug
 * in it that is now caught fails the test until it is taken out, so the set only shrinks. Empty since the
 * generation work of issue 31 (points 2 and 4: every security alternative's refused cases, writes generated in
 * volume, optional fields of a `oneOf` checked back, `writeOnly` never accepted back) caught the five it held.
 */
export const EXPECTED_MISSES_UNTIL_GENERATION: ReadonlySet<string> = new Set<string>([]);

function caughtBy<Bug extends string>(
  descriptions: Record<Bug, string>,
  families: Record<Bug, Family[]>,
): Record<string, { description: string; caughtBy: Family[] }> {
  return Object.fromEntries((Object.keys(descriptions) as Bug[]).map((bug) => [bug, { description: descriptions[bug], caughtBy: families[bug] }]));
}

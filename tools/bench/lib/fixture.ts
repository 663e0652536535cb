/**
 * What every server in the benchmark is asked and answers: the source's sample
 * request, and a page of ten items that is valid against the spec's `ItemPage`.
 * The shapes are the contract's, from `generated/`, so a spec change reaches the peers.
 */
import type { Item, OperationInput, ResponseBody } from '../../../src/contract/types.js';

export type { Item };
/** The body of `POST /` (the spec's `ListRequest`). */
export type ListRequest = OperationInput<'listOwnItems'>['body'];
/** Its 200 answer (the spec's `ItemPage`). */
export type ItemPage = ResponseBody<'listOwnItems', 200>;

/** The request body the source interface shows, with a limit that returns the whole fixture. */
export const REQUEST_BODY = JSON.stringify({ sort: 'asc', limit: 10 } satisfies ListRequest);

export const ITEM_COUNT = 10;

/** A placeholder owner for peers when the project's CLI has not made a user. */
export const FALLBACK_OWNER_ID = 'usr_bench00000000000';

const TITLES = [
  'Quarterly report draft',
  'Meeting notes',
  'Travel checklist',
  'Team roadmap',
  'Shared reading list',
  'Budget review',
  'Onboarding guide',
  'Release plan',
  'Interview questions',
  'Retrospective actions',
];

/** Ten items of one owner, one day apart, in ascending `createdAt` order. */
export function fixtureItems(ownerId: string): Item[] {
  return TITLES.slice(0, ITEM_COUNT).map((title, index) => ({
    id: `itm_bench${String(index).padStart(11, '0')}`,
    title,
    ownerId,
    createdAt: new Date(Date.UTC(2026, 0, 5 + index, 8, 15)).toISOString(),
  }));
}

/** The headers of the benchmark request for a given API key. */
export function requestHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

/**
 * A key in the contract's shape (`tka_` + 32 base62 + 6 base62), used by the
 * peers when the project's key CLI is not available. Peers compare it verbatim.
 */
export const FALLBACK_KEY = 'tka_Bench0123456789abcdefghijklmnopqchk000';

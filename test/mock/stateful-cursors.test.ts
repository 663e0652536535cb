/**
 * Issue 35, item 4: the stateful mock's cursors are bound to the query they were made with, as the server's are (the
 * spec's `Cursor`): a cursor made with a filter does not continue the list without it or with another, and a cursor
 * the mock did not make is refused, where it used to start the list over. Refused with the contract's own 422.
 */
import { describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { type Paging, pageOf } from '../../src/mock/stateful/paging.js';
import { createStatefulMock } from '../../src/mock/stateful/stateful-mock.js';
import { accountSpec } from '../helpers/web-app.js';

const paging: Paging = { limit: { name: 'limit', default: 20 }, cursor: { name: 'cursor' }, next: 'nextCursor', nextNullable: true };
const items = ['a', 'b', 'c', 'd', 'e'];
const page = (query: string) => pageOf(items, paging, new URLSearchParams(query));
const nextOf = (query: string) => {
  const answer = page(query);
  if ('refused' in answer) throw new Error(answer.refused.detail);
  return answer.next ?? '';
};

describe("the stateful mock's cursors", () => {
  it('continue the filters they were made with, in any order and with any page size', () => {
    const cursor = nextOf('tag=urgent&owner=me&limit=2');
    expect(page(`owner=me&limit=3&cursor=${cursor}&tag=urgent`)).toEqual({ page: ['c', 'd', 'e'], next: null, start: 2 });
    // Without filters, a cursor is as it was: the offset alone.
    expect(Buffer.from(nextOf('limit=2'), 'base64url').toString()).toBe('o2');
  });

  it('are refused with other filters, without them, or when the mock did not make them', () => {
    const cursor = nextOf('tag=urgent&limit=2');
    const otherFilters = { refused: { parameter: 'cursor', detail: 'was issued for other filters; send the same filters as the first page' } };
    expect(page(`cursor=${cursor}`)).toEqual(otherFilters);
    expect(page(`tag=later&cursor=${cursor}`)).toEqual(otherFilters);
    expect(page(`cursor=${nextOf('limit=2')}&tag=urgent`)).toEqual(otherFilters);
    expect(page('cursor=bm90LWEtY3Vyc29y')).toEqual({
      refused: { parameter: 'cursor', detail: 'is not a cursor of this list; take it from the previous page' },
    });
  });

  it("answers such a cursor on the account API's key list with the spec's 422 problem at /cursor", async () => {
    const mock = createStatefulMock(accountSpec);
    const listKeys = readOperations(accountSpec).find((operation) => operation.operationId === 'listKeys');
    expect(mock.coverage.stateful).toContain('listKeys');
    // What Prism answers before the stateful mock replaces it: a 200 with the spec's example (its shape is all that matters here).
    const prism = new Response(JSON.stringify({ keys: [], nextCursor: null }), { status: 200, headers: { 'content-type': 'application/json' } });
    const answer = await mock.answer(
      {
        method: 'GET',
        specPath: '/keys',
        apiPath: '/keys',
        instance: '/api/keys?cursor=bm90LWEtY3Vyc29y',
        query: new URLSearchParams('cursor=bm90LWEtY3Vyc29y'),
        headers: new Headers({ cookie: 'session=any' }),
      },
      prism,
    );
    expect(answer?.status).toBe(422);
    expect(answer?.headers.get('content-type')).toBe('application/problem+json');
    const body = await answer?.json();
    expect(body).toMatchObject({
      type: 'urn:problem-type:validation-failed',
      status: 422,
      errors: [{ in: 'query', pointer: '/cursor', detail: 'is not a cursor of this list; take it from the previous page' }],
    });
    expect(listKeys?.responses['422']).toBeDefined();
  });
});

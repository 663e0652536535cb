// Imported by package name: proves the `exports["./client"]` entry of package.json resolves.
import {
  createApiClient,
  type Item,
  type ItemPage,
  type ListOperationId,
  type ListOperationIdIn,
  type operations,
  type PageOfOperation,
  type PaginateRequest,
  type PaginateRequestIn,
  type Problem,
  paginate,
  type Sort,
} from 'bearer-list-api/client';
import { describe, expectTypeOf, it } from 'vitest';

const api = createApiClient({ baseUrl: 'http://127.0.0.1:4010', apiKey: 'tka_example' });

describe('the typed client', () => {
  it('types the body of a successful answer as the contract ItemPage', async () => {
    const { data } = await api.POST('/', { body: { sort: 'asc' } });
    expectTypeOf(data).toEqualTypeOf<ItemPage | undefined>();
    expectTypeOf<NonNullable<typeof data>['items'][number]>().toEqualTypeOf<Item>();
  });

  it('types errors as the contract Problem', async () => {
    const { error } = await api.GET('/shared', { params: { query: { limit: 2 } } });
    expectTypeOf(error).toEqualTypeOf<Problem | undefined>();
    if (error) expectTypeOf(error.type).toEqualTypeOf<Problem['type']>();
  });

  it('narrows data and error against each other', async () => {
    const result = await api.POST('/shared', { body: {} });
    if (result.error) expectTypeOf(result.data).toEqualTypeOf<undefined>();
    else expectTypeOf(result.data).toEqualTypeOf<ItemPage>();
  });

  it('rejects a sort outside the enum', () => {
    // @ts-expect-error "up" is not a Sort
    void api.POST('/', { body: { sort: 'up' } });
    // @ts-expect-error "up" is not a Sort in the query either
    void api.GET('/shared', { params: { query: { sort: 'up' } } });
    // @ts-expect-error limit is an integer, not a string
    void api.POST('/shared', { body: { limit: '10' } });
    // @ts-expect-error paginate takes the same options
    void paginate(api, 'listOwnItems', { sort: 'up' });
  });

  it('rejects unknown fields where the options are not inferred', () => {
    // openapi-fetch infers its init argument generically, so TypeScript's excess-property
    // check does not fire on `api.POST('/', { body: { srot: 'asc' } })`; the server answers 422.
    // paginate takes its options as a plain ListRequest, where the check does fire.
    // @ts-expect-error srot is not a field of ListRequest
    void paginate(api, 'listOwnItems', { srot: 'asc' });
  });

  it('requires the body of the POST operations', () => {
    // @ts-expect-error the request body is required
    void api.POST('/');
  });

  it('rejects paths and methods the contract does not have', () => {
    // @ts-expect-error there is no /items path
    void api.POST('/items', { body: {} });
    // @ts-expect-error / only has POST
    void api.GET('/');
    // @ts-expect-error /shared has no DELETE
    void api.DELETE('/shared');
    // @ts-expect-error not a list operation
    void paginate(api, 'deleteItems');
  });

  it('walks every list operation of the spec, and nothing else', () => {
    // The three of the source interface are lists; a list the spec adds joins them (npm run fix writes its route).
    expectTypeOf<'listOwnItems' | 'listSharedItems' | 'listSharedItemsByQuery'>().toExtend<ListOperationId>();
    // Nothing else: each one answers a page with a nextCursor and takes a cursor.
    expectTypeOf<PageOfOperation<ListOperationId>>().toHaveProperty('nextCursor');
    expectTypeOf<PaginateRequest<ListOperationId>>().not.toHaveProperty('cursor');
  });

  it('takes the options of a list as the spec has them after an edit: a body field added to ListRequest, a new list on the query', () => {
    // The generated types as `npm run generate` writes them once the spec's ListRequest has a `tag` and a
    // new GET /tags/{tag}/items lists by query: paginate's options follow with no change to the client.
    type Edited = Omit<operations, 'listOwnItems'> & {
      listOwnItems: Omit<operations['listOwnItems'], 'requestBody'> & {
        requestBody: { content: { 'application/json': operations['listOwnItems']['requestBody']['content']['application/json'] & { tag?: string } } };
      };
      listTagged: Omit<operations['listSharedItemsByQuery'], 'parameters'> & {
        parameters: { query?: { limit?: number; cursor?: string; tag?: string }; header?: never; path?: never; cookie?: never };
      };
    };
    // Read against the spec as it is, so a list the spec gains meanwhile does not fail this test.
    expectTypeOf<Exclude<ListOperationIdIn<Edited>, ListOperationId>>().toEqualTypeOf<'listTagged'>();
    expectTypeOf<ListOperationId>().toExtend<ListOperationIdIn<Edited>>();
    expectTypeOf<{ tag: 'urgent'; sort: Sort }>().toExtend<PaginateRequestIn<Edited, 'listOwnItems'>>();
    expectTypeOf<{ tag: 'urgent'; limit: 5 }>().toExtend<PaginateRequestIn<Edited, 'listTagged'>>();
    expectTypeOf<PaginateRequestIn<Edited, 'listOwnItems'>>().not.toHaveProperty('cursor');
  });

  it('does not take an operation with no JSON 200 and no query (a DELETE answering 204) for a list', () => {
    // An operation with no 200 body and no query parameters gives `never` for both the page and the options;
    // `never` must not pass for "has nextCursor" and "takes a cursor", or LIST_ROUTES demands a route for it.
    type Edited = operations & {
      deleteItem: {
        parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
        requestBody?: never;
        responses: { 204: { headers: { [name: string]: unknown }; content?: never } };
      };
    };
    expectTypeOf<ListOperationIdIn<Edited>>().toEqualTypeOf<ListOperationId>();
  });

  it('yields ItemPage from paginate', () => {
    expectTypeOf(paginate(api, 'listSharedItemsByQuery', { limit: 10 })).toEqualTypeOf<AsyncGenerator<ItemPage, void, undefined>>();
  });
});

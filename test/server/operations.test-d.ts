import { describe, expectTypeOf, it } from 'vitest';
import type { components, OperationInput, OperationResult, operations, ResponseBody, ResultOf } from '../../src/contract/types.js';
import type { OperationHandlers } from '../../src/server/operations.js';
import { exampleItem } from '../helpers/item-fixture.js';

type ItemPage = components['schemas']['ItemPage'];
type ListRequest = components['schemas']['ListRequest'];
/** An item with every field the spec's Item has, so each @ts-expect-error below fails for its own reason alone. */
const item = exampleItem(1);

describe('handlers are bound to the generated types', () => {
  it('take every part of their input from the spec: path, query, headers and body', () => {
    expectTypeOf<ResponseBody<'listOwnItems', 200>>().toEqualTypeOf<ItemPage>();
    expectTypeOf<OperationInput<'listOwnItems'>['body']>().toEqualTypeOf<ListRequest>();
    expectTypeOf<NonNullable<OperationInput<'listSharedItemsByQuery'>['query']['sort']>>().toEqualTypeOf<components['schemas']['Sort']>();
    // GET takes no body; POST / takes no query parameters.
    expectTypeOf<OperationInput<'listSharedItemsByQuery'>['body']>().toEqualTypeOf<undefined>();
    expectTypeOf<keyof OperationInput<'listOwnItems'>['query']>().toEqualTypeOf<string>();
    expectTypeOf<OperationInput<'listOwnItems'>['query'][string]>().toEqualTypeOf<never>();
  });

  it('answer only the statuses the spec documents with a JSON body', () => {
    expectTypeOf<OperationResult<'listOwnItems'>['status']>().toEqualTypeOf<200>();
    // @ts-expect-error 201 is not a status of listOwnItems
    const created: OperationResult<'listOwnItems'> = { status: 201, body: { items: [], nextCursor: null } };
    expectTypeOf(created).toBeObject();
  });

  it('reject a result with a field the spec does not have, when the result type is declared as the handlers declare it', () => {
    // TypeScript checks excess properties only against a declared type, which is why
    // listPage in src/server/operations.ts declares its own.
    const handler: OperationHandlers['listOwnItems'] = async (): Promise<OperationResult<'listOwnItems'>> => ({
      status: 200,
      // @ts-expect-error `total` is not a field of ItemPage
      body: { items: [], nextCursor: null, total: 3 },
    });
    expectTypeOf(handler).toBeFunction();
  });

  it('reject a result missing a required field', () => {
    // @ts-expect-error `nextCursor` is required
    const handler: OperationHandlers['listSharedItems'] = async () => ({ status: 200, body: { items: [item] } });
    expectTypeOf(handler).toBeFunction();
  });

  it('reject an item of the wrong shape', () => {
    // @ts-expect-error `id` is a string in the spec
    const handler: OperationHandlers['listSharedItemsByQuery'] = async () => ({ status: 200, body: { items: [{ ...item, id: 1 }], nextCursor: null } });
    expectTypeOf(handler).toBeFunction();
  });

  it('reject reading a part of the input the operation does not declare', () => {
    // @ts-expect-error listSharedItemsByQuery declares no body, so there is no body.sort to read
    const handler: OperationHandlers['listSharedItemsByQuery'] = async ({ body }) => ({ status: 200, body: { items: [], nextCursor: body.sort } });
    expectTypeOf(handler).toBeFunction();
  });

  it('send each required response header the spec documents that the kernel does not write, named in lower case', () => {
    // A third trial of issue 24: a required Cache-Control added to a 200 compiled, and the server answered 500 (the
    // answer broke the contract) at run time. The generated types as `npm run generate` writes them after that edit:
    type Page = operations['listSharedItemsByQuery']['responses'][200];
    type Edited = Omit<operations['listSharedItemsByQuery'], 'responses'> & {
      responses: { 200: Omit<Page, 'headers'> & { headers: Page['headers'] & { 'Cache-Control': string; Deprecation?: string } } };
    };
    const page = { items: [], nextCursor: null };
    // @ts-expect-error the spec requires Cache-Control on this 200, and the kernel does not write it
    const without: ResultOf<Edited> = { status: 200, body: page };
    // The rate-limit headers and X-Request-Id are required too, but the kernel writes them; Deprecation is optional.
    const withIt: ResultOf<Edited> = { status: 200, body: page, headers: { 'cache-control': 'private, max-age=60' } };
    expectTypeOf([without, withIt]).toBeArray();
    // Without that header, the kernel's own are all a handler needs: none of them is asked of it.
    expectTypeOf<{ status: 200; body: ItemPage }>().toExtend<ResultOf<Omit<Edited, 'responses'> & { responses: { 200: Page } }>>();
  });

  it('require a handler for every operation of the spec', () => {
    const page: OperationHandlers['listOwnItems'] = async () => ({ status: 200, body: { items: [], nextCursor: null } });
    // @ts-expect-error listSharedItemsByQuery has no handler
    const handlers: OperationHandlers = { listOwnItems: page, listSharedItems: page };
    expectTypeOf(handlers).toBeObject();
  });
});

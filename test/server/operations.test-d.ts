import { describe, expectTypeOf, it } from 'vitest';
import type { components, OperationInput, ResponseBody } from '../../src/contract/types.js';
import type { OperationHandlers } from '../../src/server/operations.js';

type ItemPage = components['schemas']['ItemPage'];
const item = { id: 'itm_0a1b2c3d4e5f6g7h', title: 'x', ownerId: 'usr_4k2m9q8r1t5v7x3z', createdAt: '2026-01-01T00:00:00.000Z' };

describe('handlers are bound to the generated types', () => {
  it('take their input and result types from the spec', () => {
    expectTypeOf<ResponseBody<'listOwnItems', 200>>().toEqualTypeOf<ItemPage>();
    expectTypeOf<OperationInput<'listOwnItems'>>().toEqualTypeOf<components['schemas']['ListRequest']>();
    expectTypeOf<NonNullable<OperationInput<'listSharedItemsByQuery'>['sort']>>().toEqualTypeOf<'asc' | 'desc'>();
  });

  it('reject a result with a field the spec does not have, when the result type is declared as the handlers declare it', () => {
    // TypeScript checks excess properties only against a declared return type, which is why
    // listPage in src/server/operations.ts declares its own.
    // @ts-expect-error `total` is not a field of ItemPage
    const handler: OperationHandlers['listOwnItems'] = (): ResponseBody<'listOwnItems', 200> => ({ items: [], nextCursor: null, total: 3 });
    expectTypeOf(handler).toBeFunction();
  });

  it('reject a result missing a required field', () => {
    // @ts-expect-error `nextCursor` is required
    const handler: OperationHandlers['listSharedItems'] = () => ({ items: [item] });
    expectTypeOf(handler).toBeFunction();
  });

  it('reject an item of the wrong shape', () => {
    // @ts-expect-error `id` is a string in the spec
    const handler: OperationHandlers['listSharedItemsByQuery'] = () => ({ items: [{ ...item, id: 1 }], nextCursor: null });
    expectTypeOf(handler).toBeFunction();
  });

  it('require a handler for every operation of the spec', () => {
    const page = (): ItemPage => ({ items: [], nextCursor: null });
    // @ts-expect-error listSharedItemsByQuery has no handler
    const handlers: OperationHandlers = { listOwnItems: page, listSharedItems: page };
    expectTypeOf(handlers).toBeObject();
  });
});

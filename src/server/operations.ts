import type { OperationId, OperationInput, ResponseBody, Violation } from '../contract/types.js';
import type { ListScope, Store } from '../store/store.js';
import type { Caller } from './authenticate.js';
import type { CursorCodec } from './cursor.js';
import { ApiError } from './problems.js';

export interface OperationContext {
  store: Store;
  cursors: CursorCodec;
  /** Where this request's options came from, for pointing at them in a violation. */
  source: Violation['in'];
}

/**
 * What each operation does, typed from `generated/`: the input is the operation's
 * request body or query string (already validated against the spec, defaults
 * filled in), the result its `200` body. Every operationId of the spec must have
 * an entry, and a result that is not the spec's shape does not compile.
 */
export type OperationHandlers = {
  [Id in OperationId]: (input: OperationInput<Id>, caller: Caller, context: OperationContext) => ResponseBody<Id, 200>;
};

export const operationHandlers: OperationHandlers = {
  listOwnItems: (input, caller, context) => listPage('own', input, caller, context),
  listSharedItems: (input, caller, context) => listPage('shared', input, caller, context),
  listSharedItemsByQuery: (input, caller, context) => listPage('shared', input, caller, context),
};

type ListInput = OperationInput<'listOwnItems'>;
type ItemPage = ResponseBody<'listOwnItems', 200>;

/**
 * One page of a list, in a total order (createdAt, then id), continued by a signed cursor.
 * The declared return type matters: TypeScript only rejects an extra field against it.
 */
function listPage(scope: ListScope, input: ListInput, caller: Caller, { store, cursors, source }: OperationContext): ItemPage {
  // The validator has filled in the spec's defaults, so sort and limit are always present here.
  const { sort, limit } = input as Required<Pick<ListInput, 'sort' | 'limit'>>;
  let after;
  if (input.cursor !== undefined) {
    const reading = cursors.decode(input.cursor, { scope, userId: caller.userId, sort });
    if (!reading.ok) {
      throw new ApiError('urn:problem-type:validation-failed', 'The cursor does not belong to this request.', {
        errors: [{ in: source, pointer: '/cursor', detail: reading.reason }],
      });
    }
    after = reading.after;
  }
  const rows = store.listItems(scope, { userId: caller.userId, sort, limit: limit + 1, ...(after && { after }) });
  const items = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  const nextCursor = rows.length > limit && last ? cursors.encode({ scope, userId: caller.userId, sort, after: { createdAt: last.createdAt, id: last.id } }) : null;
  return { items, nextCursor };
}

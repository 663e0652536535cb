import type { components, operations } from '../contract/types.js';
import type { HandlerMap } from '../http/bind-operations.js';
import { InputViolation } from '../http/read-input.js';
import type { ListScope, Position, Store } from '../store/store.js';
import type { Caller } from './bearer-key.js';
import type { CursorCodec } from './cursor.js';

/** What every handler of this API works with, besides its input. */
export interface ApiContext {
  /** The user and key the bearer token belongs to. */
  caller: Caller;
  store: Store;
  cursors: CursorCodec;
  /** The request's time, in milliseconds since the epoch. */
  now: number;
}

/**
 * What each operation does, typed from `generated/`: the input is every part of
 * the request the spec declares (`path`, `query`, `headers`, `body`), already
 * validated against the spec with its defaults filled in; the result is one of
 * the statuses the spec documents for the operation, with that status's body.
 * Every operationId of the spec must have an entry, and a result that is not the
 * spec's shape does not compile.
 */
export type OperationHandlers = HandlerMap<operations, ApiContext>;

export const operationHandlers: OperationHandlers = {
  listOwnItems: async ({ body }, context) => ({ status: 200, body: await listPage('own', body, context) }),
  listSharedItems: async ({ body }, context) => ({ status: 200, body: await listPage('shared', body, context) }),
  listSharedItemsByQuery: async ({ query }, context) => ({ status: 200, body: await listPage('shared', query, context) }),
};

type ListRequest = components['schemas']['ListRequest'];
type ItemPage = components['schemas']['ItemPage'];

/**
 * One page of a list, in a total order (createdAt, then id), continued by a signed cursor.
 * The declared return type matters: TypeScript only rejects an extra field against it.
 */
async function listPage(scope: ListScope, options: ListRequest, { caller, store, cursors }: ApiContext): Promise<ItemPage> {
  // The validator has filled in the spec's defaults, so sort and limit are always present here.
  const { sort, limit } = options as Required<Pick<ListRequest, 'sort' | 'limit'>>;
  let after: Position | undefined;
  if (options.cursor !== undefined) {
    const reading = cursors.decode(options.cursor, { scope, userId: caller.userId, sort, options });
    if (!reading.ok) throw new InputViolation('/cursor', reading.reason);
    after = reading.after;
  }
  const rows = await store.listItems(scope, { userId: caller.userId, sort, limit: limit + 1, ...(after && { after }) });
  const items = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  const nextCursor =
    rows.length > limit && last ? cursors.encode({ scope, userId: caller.userId, sort, options, after: { createdAt: last.createdAt, id: last.id } }) : null;
  return { items, nextCursor };
}

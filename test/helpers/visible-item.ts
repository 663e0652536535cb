import type { Item } from '../../src/contract/types.js';
import type { Position, Store } from '../../src/store/store.js';

const PAGE = 100;

/**
 * The item, if the user sees it in their lists (they own it, or it was shared with them); else undefined. Read
 * through the port's list query, page by page, as the service reads it: the port keeps no query only tests use.
 */
export async function findVisibleItem(store: Store, itemId: string, userId: string): Promise<Item | undefined> {
  for (const scope of ['own', 'shared'] as const) {
    let after: Position | undefined;
    for (;;) {
      const page = await store.listItems(scope, { userId, sort: 'asc', limit: PAGE, ...(after && { after }) });
      const found = page.find((item) => item.id === itemId);
      if (found) return found;
      const last = page.at(-1);
      if (page.length < PAGE || !last) break;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  return undefined;
}

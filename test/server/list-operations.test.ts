import { describe, expect, it } from 'vitest';
import { createTestApp, START } from '../helpers/app.js';
import { LIMIT, SORT } from '../helpers/spec-fixture.js';

type Page = { items: Array<{ id: string; title: string; ownerId: string; createdAt: string }>; nextCursor: string | null };

/** The three operations, each as a function from options to a request. */
const operations = {
  listOwnItems: (t: Awaited<ReturnType<typeof createTestApp>>, key: string, options: Record<string, unknown>) => t.send('POST', '/', { key, body: options }),
  listSharedItems: (t: Awaited<ReturnType<typeof createTestApp>>, key: string, options: Record<string, unknown>) =>
    t.send('POST', '/shared', { key, body: options }),
  listSharedItemsByQuery: (t: Awaited<ReturnType<typeof createTestApp>>, key: string, options: Record<string, unknown>) =>
    t.send('GET', `/shared?${new URLSearchParams(Object.entries(options).map(([name, value]) => [name, String(value)]))}`, { key }),
};

/** Walks every page and returns the ids in the order they came. */
async function walk(
  t: Awaited<ReturnType<typeof createTestApp>>,
  call: (typeof operations)[keyof typeof operations],
  key: string,
  options: Record<string, unknown>,
) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const response = await call(t, key, { ...options, ...(cursor && { cursor }) });
    expect(response.status).toBe(200);
    const page = response.json as Page;
    expect(page.items.length).toBeLessThanOrEqual(Number(options['limit'] ?? 20));
    ids.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
    if (cursor === null) return ids;
  }
  throw new Error('pagination did not end');
}

/** Ids in the order a value of the spec's Sort asks for, from ids in ascending order (`createdAt`, then `id`). */
function inOrder(sort: string, ascending: readonly string[]): string[] {
  if (sort === 'asc') return [...ascending];
  if (sort === 'desc') return [...ascending].reverse();
  throw new Error(
    `update this fixture: test/server/list-operations.test.ts knows the orders asc and desc, and the spec's Sort has ${sort}: say in inOrder what it orders by`,
  );
}

/** Two users who share some items with each other, and keep some to themselves. */
async function twoUsers() {
  const t = await createTestApp();
  const alice = await t.addUser('alice');
  const bob = await t.addUser('bob');
  const aliceItems = await t.addItems(alice.user.id, 7);
  const bobItems = await t.addItems(bob.user.id, 9, { sameTime: true });
  // Bob shares 6 of his 9 items with Alice (all with one timestamp: the tie-break decides the order).
  for (const item of bobItems.slice(0, 6)) await t.store.shareItem(item.id, alice.user.id, new Date(START).toISOString());
  await t.store.shareItem(aliceItems[0]!.id, bob.user.id, new Date(START).toISOString());
  return { t, alice, bob, aliceItems, bobItems };
}

describe("POST / lists the caller's own items", () => {
  it("answers the source's sample request with the first page, oldest first", async () => {
    const { t, alice, aliceItems } = await twoUsers();
    const response = await t.send('POST', '/', { key: alice.key, body: { sort: 'asc' } });
    expect(response.status).toBe(200);
    expect((response.json as Page).items.map((item) => item.id)).toEqual(aliceItems.map((item) => item.id));
    expect(response.json.nextCursor).toBeNull();
  });

  it('takes {} as all defaults: ascending, 20 per page', async () => {
    const t = await createTestApp();
    const { user, key } = await t.addUser('carol');
    const items = await t.addItems(user.id, 25);
    const response = await t.send('POST', '/', { key, body: {} });
    expect((response.json as Page).items.map((item) => item.id)).toEqual(items.slice(0, 20).map((item) => item.id));
    expect(response.json.nextCursor).toEqual(expect.any(String));
  });

  it.each(SORT.values)('orders the items as sort=%s says', async (sort) => {
    const { t, alice, aliceItems } = await twoUsers();
    const response = await t.send('POST', '/', { key: alice.key, body: { sort } });
    expect(response.status).toBe(200);
    expect((response.json as Page).items.map((item) => item.id)).toEqual(
      inOrder(
        sort,
        aliceItems.map((item) => item.id),
      ),
    );
  });
});

describe('the /shared operations list what others shared with the caller', () => {
  it.each(['listSharedItems', 'listSharedItemsByQuery'] as const)("%s returns exactly the shared items, not the caller's own", async (name) => {
    const { t, alice, bobItems } = await twoUsers();
    const ids = await walk(t, operations[name], alice.key, { limit: 4 });
    expect(new Set(ids)).toEqual(new Set(bobItems.slice(0, 6).map((item) => item.id)));
  });

  it("POST /shared and GET /shared give the same answer and accept each other's cursors", async () => {
    const { t, alice } = await twoUsers();
    const post = await t.send('POST', '/shared', { key: alice.key, body: { limit: 2 } });
    const get = await t.send('GET', '/shared?limit=2', { key: alice.key });
    expect(get.json).toEqual(post.json);
    const next = await t.send('GET', `/shared?limit=2&cursor=${post.json.nextCursor}`, { key: alice.key });
    expect(next.status).toBe(200);
  });

  it("accepts a Content-Type header on the body-less GET, as the source's example sends it", async () => {
    const { t, alice } = await twoUsers();
    const response = await t.send('GET', '/shared', { key: alice.key, headers: { 'Content-Type': 'application/json' } });
    expect(response.status).toBe(200);
  });
});

describe('pagination', () => {
  it.each(Object.keys(operations) as Array<keyof typeof operations>)(
    '%s walks every page in every order of Sort without missing or repeating an item',
    async (name) => {
      const t = await createTestApp();
      const reader = await t.addUser('reader');
      const owner = await t.addUser('owner');
      // 23 items, with runs of equal timestamps so the id tie-break is exercised across page boundaries.
      const items = [];
      for (let index = 0; index < 23; index++) {
        items.push(
          await t.store.createItem(
            name === 'listOwnItems' ? reader.user.id : owner.user.id,
            `Item ${index}`,
            new Date(START + Math.floor(index / 4) * 1000).toISOString(),
          ),
        );
      }
      if (name !== 'listOwnItems') for (const item of items) await t.store.shareItem(item.id, reader.user.id, new Date(START).toISOString());
      const expected = [...items]
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
        .map((item) => item.id);

      for (const limit of [LIMIT.minimum, 3, 5, 23, LIMIT.maximum].filter((size) => size >= LIMIT.minimum && size <= LIMIT.maximum)) {
        for (const sort of SORT.values) expect(await walk(t, operations[name], reader.key, { sort, limit }), `sort=${sort}`).toEqual(inOrder(sort, expected));
      }
    },
  );

  it('answers an empty list with no cursor', async () => {
    const t = await createTestApp();
    const { key } = await t.addUser('nobody');
    const response = await t.send('POST', '/', { key, body: {} });
    expect(response.json).toEqual({ items: [], nextCursor: null });
  });

  it('refuses a tampered cursor with 422 pointing at /cursor', async () => {
    const t = await createTestApp();
    const { user, key } = await t.addUser('pager');
    await t.addItems(user.id, 5);
    const first = await t.send('POST', '/', { key, body: { limit: 2 } });
    const cursor = first.json.nextCursor as string;
    const [body, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), c: '1970-01-01T00:00:00.000Z' })).toString(
      'base64url',
    );
    for (const bad of [`${forged}.${signature}`, `${body}.AAAAAAAAAAAAAAAAAAAAAA`, body!, 'abc']) {
      const response = await t.send('POST', '/', { key, body: { limit: 2, cursor: bad } });
      expect(response.status, bad).toBe(422);
      expect(response.json.errors).toEqual([{ in: 'body', pointer: '/cursor', detail: 'is not a cursor this service issued' }]);
    }
  });

  it("refuses a cursor from another list, another user or another order (each other value of the spec's Sort)", async () => {
    const { t, alice, bob } = await twoUsers();
    const aliceOwn = (await t.send('POST', '/', { key: alice.key, body: { limit: 2 } })).json.nextCursor as string;
    const cases = [
      { key: alice.key, path: '/shared', body: { limit: 2, cursor: aliceOwn }, detail: 'belongs to another list' },
      { key: bob.key, path: '/', body: { limit: 2, cursor: aliceOwn }, detail: 'belongs to another list' },
      ...SORT.values
        .filter((sort) => sort !== SORT.default)
        .map((sort) => ({ key: alice.key, path: '/', body: { limit: 2, sort, cursor: aliceOwn }, detail: expect.stringContaining(`sort=${SORT.default}`) })),
    ];
    for (const { key, path, body, detail } of cases) {
      const response = await t.send('POST', path, { key, body });
      expect(response.status).toBe(422);
      expect(response.json.errors).toEqual([{ in: 'body', pointer: '/cursor', detail }]);
    }
    const viaQuery = await t.send('GET', `/shared?cursor=${aliceOwn}`, { key: alice.key });
    expect(viaQuery.json.errors).toEqual([{ in: 'query', pointer: '/cursor', detail: 'belongs to another list' }]);
  });
});

describe('object-level authorisation (OWASP API1)', () => {
  it("never shows a user another user's item that was not shared with them", async () => {
    const { t, alice, bob, aliceItems, bobItems } = await twoUsers();
    const seenByAlice = [
      ...(await walk(t, operations.listOwnItems, alice.key, { limit: 3 })),
      ...(await walk(t, operations.listSharedItems, alice.key, { limit: 3 })),
      ...(await walk(t, operations.listSharedItemsByQuery, alice.key, { limit: 3 })),
    ];
    const allowedForAlice = new Set([...aliceItems, ...bobItems.slice(0, 6)].map((item) => item.id));
    expect(seenByAlice.filter((id) => !allowedForAlice.has(id))).toEqual([]);
    for (const hidden of bobItems.slice(6)) expect(seenByAlice).not.toContain(hidden.id);

    const seenByBob = [...(await walk(t, operations.listOwnItems, bob.key, {})), ...(await walk(t, operations.listSharedItems, bob.key, {}))];
    expect(seenByBob).toContain(aliceItems[0]!.id);
    for (const hidden of aliceItems.slice(1)) expect(seenByBob).not.toContain(hidden.id);
  });
});

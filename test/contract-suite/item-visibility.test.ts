/**
 * Issue 35, item 4: a read of one item by id (`GET /items/{id}`, added to a copy of the spec as a developer adds it:
 * `fixtures/get-item.yaml`) that ignores who may see the item was caught only by the store's tests. Given a second
 * user's key, the contract suite asks for one of the caller's items, which that user neither owns nor was shared,
 * and must be answered 403 or 404. The project's server in-process (`fixtures/faulty-api.ts`), with the handler
 * written twice: once reading what the caller sees (`findVisibleItem`), once any item of the database.
 */
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/contract/types.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { ApiError } from '../../src/http/problems.js';
import { compileRequestContract } from '../../src/http/request-contract.js';
import type { ApiContext, OperationHandlers } from '../../src/server/operations.js';
import { findVisibleItem } from '../helpers/visible-item.js';
import { faultyApi } from './fixtures/faulty-api.js';
import { specWith } from './fixtures/spec-with.js';

/** The caller's own list (where the ids come from) and the read by id: all these runs are about, at a third of the cases. */
const spec = (() => {
  const whole = specWith('./get-item.yaml');
  whole.paths = Object.fromEntries(Object.entries(whole.paths).filter(([path]) => path === '/' || path === '/items/{id}'));
  return whole;
})();
const contract = compileRequestContract(spec);

/** Every user of `faultyApi`'s data: a handler that ignores visibility finds an item whoever owns it. */
const USERS = ['demo', 'alice', 'bob', 'stranger'];

async function anyItem({ store }: ApiContext, id: string): Promise<Item | undefined> {
  for (const name of USERS) {
    const user = await store.findUserByName(name);
    const item = user && (await findVisibleItem(store, id, user.id));
    if (item) return item;
  }
  return undefined;
}

function withGetItem(find: (context: ApiContext, id: string) => Promise<Item | undefined>) {
  return (handlers: OperationHandlers): OperationHandlers => {
    const getItem = async ({ path }: { path: { id: string } }, context: ApiContext) => {
      const item = await find(context, path.id);
      if (!item) throw new ApiError('urn:problem-type:not-found', 'No item has this id.');
      return { status: 200 as const, body: item };
    };
    // The copy of the spec has an operation `OperationHandlers` (typed from the project's spec) does not name.
    return { ...handlers, getItem } as OperationHandlers;
  };
}

async function suite(find: (context: ApiContext, id: string) => Promise<Item | undefined>): Promise<SuiteReport> {
  const api = await faultyApi({ id: 'get-item', description: 'GET /items/{id}', handlers: withGetItem(find) }, { contract });
  try {
    return await runContractSuite({ baseUrl: api.baseUrl, token: api.key, fetch: api.fetch, spec, otherToken: api.strangerKey });
  } finally {
    await api.close();
  }
}

const otherUser = (report: SuiteReport) => report.results.find((result) => result.id === 'getItem positive other-user');

describe("another user's key on GET /items/{id}", () => {
  it("gets 404 for the caller's item from a handler that reads what the caller sees", async () => {
    const report = await suite((context, id) => findVisibleItem(context.store, id, context.caller.userId));
    expect(otherUser(report)).toMatchObject({ outcome: 'pass', status: 404 });
    expect(report.results.find((result) => result.id === 'getItem positive minimal-request')).toMatchObject({ outcome: 'pass', status: 200 });
    expect(report.results.filter((result) => result.outcome === 'fail').map((result) => result.id)).toEqual([]);
  });

  it("finds a handler that ignores visibility: the other user reads an item of the caller's never shared with them", async () => {
    const report = await suite(anyItem);
    expect(otherUser(report)?.outcome).toBe('fail');
    expect(otherUser(report)?.findings.map((finding) => finding.message)).toContainEqual(
      expect.stringMatching(/^another user's request for the caller's "itm_[0-9a-z]{16}" was answered 200, not 403 or 404$/),
    );
  });
});

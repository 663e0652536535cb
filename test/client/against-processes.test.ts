import { createApiClient, type Item, type ItemPage, ProblemError, paginate } from 'bearer-list-api/client';
import { describe, expect, it } from 'vitest';
import { responseExample } from '../helpers/item-fixture.js';
import { sharedService } from '../helpers/services.js';
import { LIMIT, SORT } from '../helpers/spec-fixture.js';

// Started once for the run by test/global-setup.ts.
const mock = await sharedService('mock');
const server = await sharedService('server');
const demoKey = server.demoKey;

async function collect(pages: AsyncIterable<ItemPage>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of pages) items.push(...page.items);
  return items;
}

describe('the client against the implementation', () => {
  it.each(SORT.values)('lists with sort=%s, walks every page and agrees with one big page', async (sort) => {
    const api = createApiClient({ baseUrl: server.url, apiKey: demoKey });
    const { data, error } = await api.POST('/', { body: { sort, limit: 100 } });
    expect(error).toBeUndefined();
    expect(data?.items.length).toBeGreaterThan(5);
    const walked = await collect(paginate(api, 'listOwnItems', { sort, limit: 5 }));
    expect(walked.map((item) => item.id)).toEqual(data?.items.map((item) => item.id));
  });

  it('gives the same shared items through POST /shared and GET /shared', async () => {
    const api = createApiClient({ baseUrl: server.url, apiKey: demoKey });
    const byPost = await collect(paginate(api, 'listSharedItems', { limit: LIMIT.minimum }));
    const byGet = await collect(paginate(api, 'listSharedItemsByQuery', { limit: LIMIT.minimum }));
    expect(byPost.length).toBeGreaterThan(1);
    expect(byGet).toEqual(byPost);
  });

  it('returns a Problem for a key the server does not know', async () => {
    const api = createApiClient({ baseUrl: server.url, apiKey: `tka_${'A'.repeat(38)}` });
    const { data, error, response } = await api.GET('/shared');
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ type: 'urn:problem-type:unauthorized', status: 401 });
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('returns the 422 Problem with the offending field', async () => {
    const api = createApiClient({ baseUrl: server.url, apiKey: demoKey });
    const { error } = await api.POST('/shared', { body: { limit: LIMIT.maximum + 1 } });
    expect(error).toMatchObject({ type: 'urn:problem-type:validation-failed', status: 422, errors: [{ in: 'body', pointer: '/limit' }] });
  });

  it('makes paginate throw a ProblemError when a page fails', async () => {
    const api = createApiClient({ baseUrl: server.url, apiKey: `tka_${'A'.repeat(38)}` });
    await expect(collect(paginate(api, 'listOwnItems'))).rejects.toBeInstanceOf(ProblemError);
  });
});

describe('the client against the Prism mock', () => {
  it('accepts any token and serves the named examples', async () => {
    const api = createApiClient({ baseUrl: mock.url, apiKey: 'any-token' });
    const first = await api.POST('/', { body: { sort: 'asc', limit: 2 } });
    expect(first.data).toEqual(responseExample('/', 'post', '200', 'firstPage'));
    const last = await api.POST('/', { body: { sort: 'asc', limit: 2, cursor: first.data!.nextCursor! }, headers: { Prefer: 'example=lastPage' } });
    expect(last.data).toEqual(responseExample('/', 'post', '200', 'lastPage'));
  });

  it('returns a Problem when the Prefer header asks for an error status', async () => {
    const api = createApiClient({ baseUrl: mock.url, apiKey: 'any-token' });
    const { error, response } = await api.GET('/shared', { headers: { Prefer: 'code=401' } });
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ type: 'urn:problem-type:unauthorized', status: 401 });
  });

  it('rejects a request that breaks the spec with 422', async () => {
    const api = createApiClient({ baseUrl: mock.url, apiKey: 'any-token' });
    const { error } = await api.GET('/shared', { params: { query: { limit: LIMIT.maximum + 1 } } });
    expect(error).toMatchObject({ type: 'urn:problem-type:validation-failed', status: 422 });
  });

  it('walks a list whose example ends, and stops with an explanation where the static example repeats its cursor', async () => {
    const api = createApiClient({ baseUrl: mock.url, apiKey: 'any-token' });
    expect(await collect(paginate(api, 'listSharedItems'))).toHaveLength(2);
    await expect(collect(paginate(api, 'listOwnItems'))).rejects.toThrow(/sent the cursor .* twice/);
  });
});

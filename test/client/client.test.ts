import { createApiClient, type ItemPage, type Problem, ProblemError, paginate } from 'bearer-list-api/client';
import { describe, expect, it } from 'vitest';
import { createAccountClient } from '../../src/client/account.js';
import { isDevelopment, preferWarnings } from '../../src/client/mock-only-headers.js';
import { exampleItem } from '../helpers/item-fixture.js';
import { SORT } from '../helpers/spec-fixture.js';

/** A fetch that records each request and answers from a function (no mocking library). */
function recordingFetch(answer: (request: Request, body: string) => Response) {
  const requests: Array<{ method: string; url: string; authorization: string | null; contentType: string | null; body: string }> = [];
  const fetch = async (request: Request): Promise<Response> => {
    const body = await request.text();
    requests.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      body,
    });
    return answer(request, body);
  };
  return { fetch, requests };
}

const json = (status: number, body: unknown, type = 'application/json') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });

/** The n-th item of a fake page: the spec's `Item`, its fields from the spec's example items. */
const item = exampleItem;

const unauthorized: Problem = { type: 'urn:problem-type:unauthorized', title: 'Unauthorized', status: 401, detail: 'The API key is unknown or revoked.' };

describe('createApiClient', () => {
  it.each([
    { given: 'http://api.test', want: 'http://api.test/shared' },
    { given: 'http://api.test/', want: 'http://api.test/shared' },
    { given: 'http://api.test/base/', want: 'http://api.test/base/shared' },
  ])('joins baseUrl $given and the path', async ({ given, want }) => {
    const { fetch, requests } = recordingFetch(() => json(200, { items: [], nextCursor: null }));
    await createApiClient({ baseUrl: given, apiKey: 'tka_k', fetch }).POST('/shared', { body: {} });
    expect(requests[0]?.url).toBe(want);
  });

  it('sends the key as a bearer token and the body as JSON', async () => {
    const { fetch, requests } = recordingFetch(() => json(200, { items: [], nextCursor: null }));
    const api = createApiClient({ baseUrl: 'http://api.test', apiKey: 'tka_secret', fetch });
    await api.POST('/', { body: { sort: SORT.default, limit: 5 } });
    await api.GET('/shared', { params: { query: { sort: 'asc', limit: 2 } } });
    expect(requests).toEqual([
      {
        method: 'POST',
        url: 'http://api.test/',
        authorization: 'Bearer tka_secret',
        contentType: 'application/json',
        body: JSON.stringify({ sort: SORT.default, limit: 5 }),
      },
      { method: 'GET', url: 'http://api.test/shared?sort=asc&limit=2', authorization: 'Bearer tka_secret', contentType: null, body: '' },
    ]);
  });

  it('returns a Problem as error and never throws on an HTTP error', async () => {
    const { fetch } = recordingFetch(() => json(401, unauthorized, 'application/problem+json'));
    const { data, error, response } = await createApiClient({ baseUrl: 'http://api.test', apiKey: 'tka_k', fetch }).POST('/', { body: {} });
    expect(data).toBeUndefined();
    expect(error).toEqual(unauthorized);
    expect(response.status).toBe(401);
  });

  it.each([
    { given: { baseUrl: '', apiKey: 'tka_k' }, want: /baseUrl must be an absolute URL/ },
    { given: { baseUrl: '//other.test', apiKey: 'tka_k' }, want: /baseUrl must be an absolute URL .* or a path on the page's own origin/ },
    { given: { baseUrl: 'api', apiKey: 'tka_k' }, want: /baseUrl must be an absolute URL/ },
    { given: { baseUrl: 'http://api.test', apiKey: '' }, want: /apiKey must be a non-empty API key/ },
    { given: { baseUrl: 'http://api.test', apiKey: 'tka_a b' }, want: /apiKey must be a non-empty API key/ },
    { given: { baseUrl: 'http://api.test', apiKey: ' \n\t' }, want: /apiKey must be a non-empty API key/ },
  ])('throws on misuse: $given', ({ given, want }) => {
    expect(() => createApiClient(given)).toThrow(want);
  });

  it('refuses a path as baseUrl where there is no page to resolve it against (Node), when made, naming the absolute form', () => {
    expect(() => createApiClient({ baseUrl: '/api', apiKey: 'tka_k' })).toThrow(
      'createApiClient: baseUrl "/api" is a path on the page\'s origin, and there is no page here (Node, a test, a server): give an absolute URL such as "http://127.0.0.1:3000/api"',
    );
    expect(() => createAccountClient()).toThrow(/^createAccountClient: baseUrl "\/api" is a path on the page's origin/);
    expect(() => createAccountClient({ baseUrl: 'api' })).toThrow(/createAccountClient: baseUrl must be an absolute URL/);
  });

  it("takes a path on the page's own origin as baseUrl, as behind a dev server's proxy, for both clients", async () => {
    // In a browser a relative URL resolves against the page; here a Request that resolves it against a page's address stands in.
    const BrowserRequest = class extends Request {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(typeof input === 'string' ? new URL(input, 'http://page.test/app/') : input, init);
      }
    };
    const original = globalThis.Request;
    globalThis.Request = BrowserRequest;
    try {
      const { fetch, requests } = recordingFetch(() => json(200, { items: [], nextCursor: null }));
      await createApiClient({ baseUrl: '/api', apiKey: 'tka_k', fetch }).POST('/shared', { body: {} });
      await createAccountClient({ fetch }).GET('/keys');
      expect(requests.map((request) => request.url)).toEqual(['http://page.test/api/shared', 'http://page.test/api/keys']);
    } finally {
      globalThis.Request = original;
    }
  });

  it.each([' tka_k', 'tka_k\n', '\ttka_k \r\n'])('trims the whitespace a paste leaves around the key: %j', async (apiKey) => {
    const { fetch, requests } = recordingFetch(() => json(200, { items: [], nextCursor: null }));
    await createApiClient({ baseUrl: 'http://api.test', apiKey, fetch }).GET('/shared');
    expect(requests[0]?.authorization).toBe('Bearer tka_k');
  });
});

describe('paginate', () => {
  const pages: Record<string, ItemPage> = {
    first: { items: [item(1), item(2)], nextCursor: 'c2' },
    c2: { items: [item(3), item(4)], nextCursor: 'c3' },
    c3: { items: [item(5)], nextCursor: null },
  };

  it.each([
    { operation: 'listOwnItems', method: 'POST', path: '/' },
    { operation: 'listSharedItems', method: 'POST', path: '/shared' },
    { operation: 'listSharedItemsByQuery', method: 'GET', path: '/shared' },
  ] as const)('follows nextCursor of $operation until it is null', async ({ operation, method, path }) => {
    const { fetch, requests } = recordingFetch((request, body) => {
      const cursor = method === 'GET' ? new URL(request.url).searchParams.get('cursor') : (JSON.parse(body) as { cursor?: string }).cursor;
      return json(200, pages[cursor ?? 'first']);
    });
    const api = createApiClient({ baseUrl: 'http://api.test', apiKey: 'tka_k', fetch });
    const ids: string[] = [];
    for await (const page of paginate(api, operation, { sort: 'asc', limit: 2 })) ids.push(...page.items.map((entry) => entry.id));
    expect(ids).toEqual([1, 2, 3, 4, 5].map((n) => item(n).id));
    expect(requests.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual(Array(3).fill(`${method} ${path}`));
    if (method === 'POST')
      expect(requests.map((request) => request.body)).toEqual([
        '{"sort":"asc","limit":2}',
        '{"sort":"asc","limit":2,"cursor":"c2"}',
        '{"sort":"asc","limit":2,"cursor":"c3"}',
      ]);
  });

  it('stops after maxPages', async () => {
    const { fetch, requests } = recordingFetch((_, body) => json(200, pages[(JSON.parse(body) as { cursor?: string }).cursor ?? 'first']));
    const api = createApiClient({ baseUrl: 'http://api.test', apiKey: 'tka_k', fetch });
    const seen: ItemPage[] = [];
    for await (const page of paginate(api, 'listOwnItems', {}, { maxPages: 2 })) seen.push(page);
    expect(seen).toHaveLength(2);
    expect(requests).toHaveLength(2);
  });

  it('throws a ProblemError carrying the Problem when a page fails', async () => {
    const { fetch } = recordingFetch(() => json(401, unauthorized, 'application/problem+json'));
    const api = createApiClient({ baseUrl: 'http://api.test', apiKey: 'tka_k', fetch });
    const walk = async () => {
      for await (const page of paginate(api, 'listSharedItems')) void page;
    };
    await expect(walk()).rejects.toThrow(ProblemError);
    await expect(walk()).rejects.toMatchObject({ status: 401, problem: unauthorized });
  });

  it('refuses to loop when the server repeats a cursor (as the static mock does)', async () => {
    const { fetch, requests } = recordingFetch(() => json(200, pages['first']));
    const api = createApiClient({ baseUrl: 'http://api.test', apiKey: 'tka_k', fetch });
    const walk = async () => {
      for await (const page of paginate(api, 'listOwnItems')) void page;
    };
    await expect(walk()).rejects.toThrow(/sent the cursor "c2" twice.*Prefer: example=lastPage/);
    expect(requests).toHaveLength(2);
  });
});

describe('the warning about Prefer, a header only the mock honours', () => {
  const withWarnings = (answer: (request: Request) => Response | Promise<Response>) => {
    const warnings: string[] = [];
    const api = createApiClient({ baseUrl: 'http://api.test', apiKey: 'tka_k', fetch: async (request) => answer(request), warnings: false });
    api.use(preferWarnings((message) => warnings.push(message)));
    return { api, warnings };
  };

  it('says nothing when the mock applied it (Preference-Applied), or when no Prefer was sent', async () => {
    const { api, warnings } = withWarnings(
      () => new Response('{"items":[],"nextCursor":null}', { headers: { 'content-type': 'application/json', 'preference-applied': 'example=empty' } }),
    );
    await api.POST('/', { body: {}, headers: { Prefer: 'example=empty' } });
    await api.POST('/', { body: {} });
    expect(warnings).toEqual([]);
  });

  it('says the server ignored it when the answer does not say it was applied', async () => {
    const { api, warnings } = withWarnings(() => json(200, { items: [], nextCursor: null }));
    await api.GET('/shared', { headers: { Prefer: 'code=429' } });
    expect(warnings).toEqual([expect.stringMatching(/^GET http:\/\/api\.test\/shared: the answer ignored "Prefer: code=429"\. Only the mock/)]);
  });

  it('explains a failed request that carried it (a preflight the server refused shows as "Failed to fetch")', async () => {
    const { api, warnings } = withWarnings(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(api.GET('/shared', { headers: { Prefer: 'code=429' } })).rejects.toThrow('Failed to fetch');
    expect(warnings).toEqual([expect.stringMatching(/failed \(TypeError: Failed to fetch\) with "Prefer: code=429".*preflight.*drop the header/)]);
  });

  it('is on by default in a development build (Vite, and so Vitest, says DEV)', () => {
    expect(isDevelopment()).toBe(true);
  });
});

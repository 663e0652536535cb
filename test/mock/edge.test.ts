/**
 * The mock's edge: Prism's own answers rewritten in the contract's words, unit by unit
 * (`translateAnswer` on answers as Prism writes them), and on the wire against the mock
 * the test run starts (`npm run mock`'s process: the edge in front of Prism).
 */
import { describe, expect, it } from 'vitest';
import { readContractPaths } from '../../src/contract/project.js';
import { loadSpec } from '../../src/contract/spec.js';
import { compileRequestContract } from '../../src/http/request-contract.js';
import { type ContractFacts, translateAnswer } from '../../src/mock/edge.js';
import { headerExamples, problemTypesByStatus } from '../../src/mock/spec-answers.js';
import { sharedService } from '../helpers/services.js';
import { LIMIT, SORT } from '../helpers/spec-fixture.js';

const spec = loadSpec(readContractPaths().spec);
const contractTypes = new Set((spec.components['schemas'] as { ProblemType: { enum: string[] } }).ProblemType.enum);
const facts: ContractFacts = { problemTypes: problemTypesByStatus(spec), bounds: compileRequestContract(spec).problemBounds };
const mock = await sharedService('mock');

const prismAnswer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json', ...headers } });

describe('translateAnswer', () => {
  it('turns a 422 into the violations Prism found, not the canned example', async () => {
    const example = {
      type: 'urn:problem-type:validation-failed',
      title: 'Validation failed',
      status: 422,
      detail: 'x',
      errors: [{ in: 'body', pointer: '/sort', detail: 'x' }],
    };
    const violations = [{ location: ['request', 'body', 'limit'], severity: 'Error', code: 'maximum', message: 'Request body property limit must be <= 100' }];
    const answer = await translateAnswer(
      prismAnswer(422, example, { 'sl-violations': JSON.stringify(violations) }),
      { method: 'POST', path: '/shared' },
      facts,
    );
    const body = await answer.json();
    expect(answer.status).toBe(422);
    expect(body).toEqual({
      type: 'urn:problem-type:validation-failed',
      title: 'Validation failed',
      status: 422,
      detail: 'The request breaks the contract in 1 place.',
      instance: '/shared',
      requestId: answer.headers.get('x-request-id'),
      errors: [{ in: 'body', pointer: '/limit', detail: 'must be <= 100' }],
    });
  });

  it.each([
    { status: 404, prism: { type: 'https://stoplight.io/prism/errors#NO_PATH_MATCHED_ERROR', status: 404 }, want: 'urn:problem-type:not-found', allow: null },
    {
      status: 405,
      prism: { type: 'https://stoplight.io/prism/errors#NO_METHOD_MATCHED_ERROR', status: 405 },
      want: 'urn:problem-type:method-not-allowed',
      allow: 'GET, HEAD, POST',
    },
  ])("turns Prism's own $status problem into the contract's", async ({ status, prism, want, allow }) => {
    const answer = await translateAnswer(prismAnswer(status, prism), { method: 'DELETE', path: '/shared', allow: ['GET', 'HEAD', 'POST'] }, facts);
    const body = (await answer.json()) as { type: string; requestId: string };
    expect(answer.status).toBe(status);
    expect(body.type).toBe(want);
    expect(contractTypes.has(body.type)).toBe(true);
    expect(answer.headers.get('allow')).toBe(allow);
    expect(answer.headers.get('x-request-id')).toBe(body.requestId);
  });

  it("turns Prism's invalid_json 400 into the contract's malformed-request problem", async () => {
    const prism = new Response('{"error":{"code":"invalid_json","message":"Invalid JSON"}}', {
      status: 400,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    const declared = headerExamples(spec).get('POST / 400') ?? {};
    const answer = await translateAnswer(prism, { method: 'POST', path: '/', declaredHeaders: () => declared }, facts);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(await answer.json()).toMatchObject({ type: 'urn:problem-type:malformed-request', status: 400, detail: 'The request body is not valid JSON.' });
    // The spec declares the quota's headers on this 400, as the server sends them; Prism would send their examples.
    expect(Object.keys(declared)).toContain('ratelimit-limit');
    for (const [name, value] of Object.entries(declared)) expect(answer.headers.get(name), name).toBe(value);
  });

  it("passes the spec's own answers through, with X-Request-Id as the example's requestId", async () => {
    const example = {
      type: 'urn:problem-type:unauthorized',
      title: 'Unauthorized',
      status: 401,
      detail: 'd',
      requestId: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
    };
    const answer = await translateAnswer(prismAnswer(401, example, { 'www-authenticate': 'Bearer realm="api"' }), { method: 'GET', path: '/shared' }, facts);
    expect(await answer.json()).toEqual(example);
    expect(answer.headers.get('x-request-id')).toBe(example.requestId);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    const page = await translateAnswer(
      new Response('{"items":[],"nextCursor":null}', { headers: { 'content-type': 'application/json' } }),
      { method: 'POST', path: '/' },
      facts,
    );
    expect(await page.text()).toBe('{"items":[],"nextCursor":null}');
    expect(page.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the mock on the wire (npm run mock)', () => {
  const send = (path: string, init: RequestInit) => fetch(`${mock.url}${path}`, { ...init, headers: { Authorization: 'Bearer any', ...init.headers } });

  it('answers a body with an unknown field with a 422 whose errors point at that field, as the server does', async () => {
    const answer = await send('/shared', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"srot":"desc","limit":5}' });
    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    const body = (await answer.json()) as { type: string; errors: unknown[]; requestId: string };
    expect(body.type).toBe('urn:problem-type:validation-failed');
    expect(body.errors).toEqual([{ in: 'body', pointer: '/srot', detail: 'is not a known field' }]);
    expect(answer.headers.get('x-request-id')).toBe(body.requestId);
  });

  it.each([
    { given: 'a query value of the wrong type', path: '/shared?limit=many', init: {}, want: [{ in: 'query', pointer: '/limit', detail: 'must be integer' }] },
    {
      given: 'two bad body fields',
      path: '/',
      init: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"sort":"up","limit":0}' },
      want: [
        { in: 'body', pointer: '/sort', detail: `must be one of: ${SORT.values.join(', ')}` },
        { in: 'body', pointer: '/limit', detail: `must be >= ${LIMIT.minimum}` },
      ],
    },
  ])('names each violation of $given', async ({ path, init, want }) => {
    const answer = await send(path, init);
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { errors: unknown[] }).errors).toEqual(expect.arrayContaining(want));
  });

  it('sends no sl-violations about its own answer, and says which preference it applied (Preference-Applied)', async () => {
    const answer = await send('/shared', { headers: { Prefer: 'code=429' } });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('sl-violations'), "Prism's finding about its own RateLimit-Remaining: 0").toBeNull();
    expect(answer.headers.get('preference-applied')).toBe('code=429');
    expect((await send('/shared', {})).headers.get('preference-applied')).toBeNull();
  });

  it("answers with the contract's problem types only: unknown path, other method, bad JSON", async () => {
    const answers = await Promise.all([
      send('/no-such-path', {}),
      send('/shared', { method: 'DELETE' }),
      send('/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"sort":' }),
    ]);
    const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as { type: string; status: number }[];
    expect(bodies.map((body) => [body.status, body.type])).toEqual([
      [404, 'urn:problem-type:not-found'],
      [405, 'urn:problem-type:method-not-allowed'],
      [400, 'urn:problem-type:malformed-request'],
    ]);
    expect(answers[1]?.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

/**
 * The contract kernel on its own, with a small spec of two security schemes and an open operation:
 * each operation runs the check its `security` names (and only that), guards run in their order,
 * a scheme without a check fails at startup, and every refusal is the one problem writer's body.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../../src/contract/spec.js';
import type { HandlerMap } from '../../src/http/bind-operations.js';
import { createContractApp } from '../../src/http/contract-app.js';
import { FailureBudget } from '../../src/http/failure-budget.js';
import type { Guard } from '../../src/http/kernel-env.js';
import { ApiError, problemBody } from '../../src/http/problems.js';
import { compileRequestContract } from '../../src/http/request-contract.js';

const problem = { description: 'refused', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
const spec = parse(
  `
openapi: 3.1.0
info: { title: kernel, version: 1.0.0 }
x-limits: { maxBodyBytes: 1024, headersTimeoutSeconds: 10, requestTimeoutSeconds: 30, rateLimit: { requests: 10, windowSeconds: 60 }, failedAuthentication: { perAddress: 10, windowSeconds: 60 } }
components:
  securitySchemes:
    token: { type: http, scheme: bearer }
    cookie: { type: apiKey, in: cookie, name: session }
  schemas:
    Who: { type: object, required: [who], properties: { who: { type: string } } }
    Violation: { type: object, properties: { in: { type: string }, pointer: { type: string, maxLength: 50 }, detail: { type: string, maxLength: 50 } } }
    Problem:
      type: object
      properties:
        detail: { type: string, maxLength: 60 }
        instance: { type: string, maxLength: 30 }
        requestId: { type: string, maxLength: 100 }
        errors: { type: array, maxItems: 2, items: { $ref: '#/components/schemas/Violation' } }
paths:
  /by-token:
    get:
      operationId: byToken
      security: [{ token: [] }]
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Who' } } } }, '401': PROBLEM, '429': PROBLEM }
  /by-cookie:
    get:
      operationId: byCookie
      security: [{ cookie: [] }]
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Who' } } } }, '401': PROBLEM, '429': PROBLEM }
  /open:
    get:
      operationId: open
      security: []
      responses: { '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Who' } } } }, '429': PROBLEM }
`.replaceAll('PROBLEM', JSON.stringify(problem)),
) as OpenApiDocument;

type Answer = { responses: { 200: { content: { 'application/json': { who: string } } } } };
type Empty = { parameters: { query?: never; header?: never; path?: never; cookie?: never }; requestBody?: never };
type Operations = { byToken: Empty & Answer; byCookie: Empty & Answer; open: Empty & Answer };
type Variables = { who?: string; trail: string[] };

const handlers: HandlerMap<Operations, { who: string }> = {
  byToken: async (_input, { who }) => ({ status: 200, body: { who } }),
  byCookie: async (_input, { who }) => ({ status: 200, body: { who } }),
  open: async (_input, { who }) => ({ status: 200, body: { who } }),
};

/** A scheme's check: lets `let-me-in` through as `name`, refuses anything else with 401. */
function scheme(name: string, header: string): Guard<Variables> {
  return async (c) => {
    c.get('trail').push(name);
    if (c.req.header(header) !== 'let-me-in') throw new ApiError('urn:problem-type:unauthorized', `No ${name} here.`);
    c.set('who', name);
  };
}

function kernel(security: Record<string, Guard<Variables>> = { token: scheme('token', 'authorization'), cookie: scheme('cookie', 'cookie') }) {
  const logs: object[] = [];
  const app = createContractApp<Operations, { who: string }, Variables>({
    name: 'the kernel test API',
    contract: compileRequestContract(spec),
    handlers,
    handlerName: (operationId) => operationId,
    basePath: '',
    maxBodyBytes: 1024,
    logger: { info: (fields) => logs.push(fields), error: (fields) => logs.push(fields) },
    security,
    guards: {
      beforeSecurity: [
        (c) => {
          c.set('trail', ['before']);
          if (c.req.header('x-slow-down') !== undefined) throw new ApiError('urn:problem-type:rate-limited', 'Slow down.');
        },
      ],
      afterSecurity: [
        (c) => {
          c.get('trail').push('after');
        },
      ],
    },
    context: (c) => ({ who: `${c.get('who') ?? 'nobody'} via ${c.get('trail').join(' > ')}` }),
  });
  return { app, logs };
}

describe('the contract kernel', () => {
  it('runs the security check each operation names, between the guards', async () => {
    const { app } = kernel();
    const token = await app.request('/by-token', { headers: { authorization: 'let-me-in' } });
    expect(await token.json()).toEqual({ who: 'token via before > token > after' });
    const cookie = await app.request('/by-cookie', { headers: { cookie: 'let-me-in' } });
    expect(await cookie.json()).toEqual({ who: 'cookie via before > cookie > after' });
    // An operation whose security is empty runs no scheme, but the guards all the same.
    const open = await app.request('/open');
    expect(await open.json()).toEqual({ who: 'nobody via before > after' });
  });

  it("refuses with the scheme's problem, written by the one problem writer and held to the spec", async () => {
    const { app } = kernel();
    const refused = await app.request('/by-token', { headers: { cookie: 'let-me-in' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    const body = await refused.json();
    expect(body).toEqual(
      problemBody(
        'urn:problem-type:unauthorized',
        'No token here.',
        { requestId: body.requestId, instance: '/by-token' },
        compileRequestContract(spec).problemBounds,
      ),
    );
    expect(body.requestId).toBe(refused.headers.get('x-request-id'));
    const guarded = await app.request('/by-cookie', { headers: { cookie: 'let-me-in', 'x-slow-down': '1' } });
    expect([guarded.status, (await guarded.json()).detail]).toEqual([429, 'Slow down.']);
  });

  it('answers a path no operation has with its 404, naming the API', async () => {
    const { app } = kernel();
    const missing = await app.request('/nowhere');
    expect(missing.status).toBe(404);
    expect((await missing.json()).detail).toBe('No operation of the kernel test API has this path.');
  });

  it('fails at startup when an operation names a scheme it has no middleware for', () => {
    expect(() => kernel({ token: scheme('token', 'authorization') })).toThrow(
      /byCookie declares the security scheme cookie, which this app has no middleware for/,
    );
  });
});

describe('the one problem writer', () => {
  const bounds = compileRequestContract(spec).problemBounds;

  it('bounds every field as the spec bounds it, and sends no key back', () => {
    const key = `tka_${'a'.repeat(38)}`;
    const body = problemBody(
      'urn:problem-type:validation-failed',
      'x'.repeat(100),
      { requestId: 'r1', instance: `/items/${key}` },
      bounds,
      [1, 2, 3].map((n) => ({ in: 'body' as const, pointer: `/${key}/${'p'.repeat(60)}`, detail: `${n}`.repeat(80) })),
    );
    expect(body.detail).toHaveLength(60);
    expect(body.instance?.length).toBeLessThanOrEqual(30);
    expect(body.errors).toHaveLength(2);
    expect(body.errors?.every((violation) => violation.pointer.length <= 50 && violation.detail.length <= 50)).toBe(true);
    expect(JSON.stringify(body)).not.toContain(key);
    expect(body).toMatchObject({ type: 'urn:problem-type:validation-failed', title: 'Validation failed', status: 422, requestId: 'r1' });
  });
});

describe('the failure budget', () => {
  it('spends per address only, so no number of addresses spends another one, and forgets when the window ends', () => {
    const clock = { now: 0 };
    const budget = new FailureBudget({ perAddress: 2, windowSeconds: 60, now: () => clock.now });
    budget.fail('a');
    expect(budget.spent('a')).toBeUndefined();
    budget.fail('a');
    expect(budget.spent('a')).toEqual({ limit: 2, resetSeconds: 60 });
    for (let address = 0; address < 1_000; address++) budget.fail(`made-up ${address}`);
    expect(budget.spent('b')).toBeUndefined();
    clock.now = 30_000;
    expect(budget.spent('a')).toEqual({ limit: 2, resetSeconds: 30 });
    clock.now = 60_000;
    expect(budget.spent('a')).toBeUndefined();
  });
});

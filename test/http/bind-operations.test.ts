/**
 * The operation seam on its own, with a small spec of every shape the public
 * contract does not use yet: path templates, header parameters, an optional
 * body, a 201 and a 204, and a 404 thrown by a handler.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../../src/contract/spec.js';
import { bindOperations, type HandlerMap, type HandlerResult } from '../../src/http/bind-operations.js';
import { ApiError } from '../../src/http/problems.js';
import { InputViolation } from '../../src/http/read-input.js';
import { compileRequestContract } from '../../src/http/request-contract.js';

const spec = parse(`
openapi: 3.1.0
info: { title: seam, version: 1.0.0 }
x-limits: { maxBodyBytes: 1024, headersTimeoutSeconds: 10, requestTimeoutSeconds: 30, rateLimit: { requests: 10, windowSeconds: 60 }, failedAuthentication: { perAddress: 10, windowSeconds: 60 } }
paths:
  /boxes/{boxId}/notes/{noteId}:
    get:
      operationId: readNote
      parameters:
        - { name: boxId, in: path, required: true, schema: { type: string, pattern: '^box_[a-z]+$' } }
        - { name: noteId, in: path, required: true, schema: { type: integer, minimum: 1 } }
        - { name: X-Version, in: header, required: true, schema: { type: integer, enum: [1, 2] } }
        - { name: fields, in: query, schema: { type: string, enum: [all, title] } }
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
        '404': { description: none, content: { application/problem+json: { schema: { $ref: '#/components/schemas/Problem' } } } }
        '422': { description: bad, content: { application/problem+json: { schema: { $ref: '#/components/schemas/Problem' } } } }
    delete:
      operationId: deleteNote
      parameters:
        - { name: boxId, in: path, required: true, schema: { type: string } }
        - { name: noteId, in: path, required: true, schema: { type: integer } }
      responses:
        '204': { description: gone }
  /boxes:
    post:
      operationId: createBox
      requestBody:
        required: false
        content: { application/json: { schema: { type: object, additionalProperties: false, properties: { name: { type: string, default: untitled } } } } }
      responses:
        '201': { description: made, content: { application/json: { schema: { type: object, required: [name], properties: { name: { type: string } } } } } }
        '422': { description: bad, content: { application/problem+json: { schema: { $ref: '#/components/schemas/Problem' } } } }
components:
  schemas:
    Note: { type: object, required: [box, id, version, fields], properties: { box: { type: string }, id: { type: integer }, version: { type: integer }, fields: { type: string } } }
    Violation:
      type: object
      properties: { in: { type: string }, pointer: { type: string, maxLength: 100 }, detail: { type: string, maxLength: 100 } }
    Problem:
      type: object
      properties:
        detail: { type: string, maxLength: 200 }
        instance: { type: string, maxLength: 200 }
        requestId: { type: string, maxLength: 100 }
        errors: { type: array, maxItems: 10, items: { $ref: '#/components/schemas/Violation' } }
`) as OpenApiDocument;

/** The fixture's operations, as openapi-typescript would write them. */
interface Operations {
  readNote: {
    parameters: { path: { boxId: string; noteId: number }; header: { 'x-version': 1 | 2 }; query?: { fields?: 'all' | 'title' }; cookie?: never };
    requestBody?: never;
    responses: { 200: { content: { 'application/json': { box: string; id: number; version: number; fields: string } } }; 404: unknown; 422: unknown };
  };
  deleteNote: {
    parameters: { path: { boxId: string; noteId: number }; query?: never; header?: never; cookie?: never };
    requestBody?: never;
    responses: { 204: { content?: never } };
  };
  createBox: {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    requestBody?: { content: { 'application/json': { name?: string } } };
    responses: { 201: { content: { 'application/json': { name: string } } }; 422: unknown };
  };
}

const handlers: HandlerMap<Operations, { user: string }> = {
  readNote: async ({ path, headers, query }) => {
    if (path.noteId === 404) throw new ApiError('urn:problem-type:not-found', 'No such note.');
    if (path.noteId === 999) throw new InputViolation('/noteId', 'is archived');
    return { status: 200, body: { box: path.boxId, id: path.noteId, version: headers['x-version'], fields: query.fields ?? 'all' } };
  },
  deleteNote: async () => ({ status: 204 }),
  createBox: async ({ body }) => ({ status: 201, body: { name: body?.name ?? 'no body' } }),
};

function app() {
  const hono = new Hono();
  bindOperations(hono, {
    contract: compileRequestContract(spec),
    handlers,
    basePath: '',
    maxBodyBytes: 1024,
    prepare: () => ({ user: 'ann' }),
    write: (_c, _operation, result: HandlerResult) => new Response(result.body === undefined ? null : JSON.stringify(result.body), { status: result.status }),
  });
  hono.onError((error) =>
    error instanceof ApiError
      ? Response.json({ type: error.type, errors: error.errors }, { status: error.status, headers: error.headers })
      : Response.json({ crash: String(error) }, { status: 500 }),
  );
  return hono;
}

const cases = [
  {
    given: 'path and header parameters, coerced to their types',
    request: ['GET', '/boxes/box_a/notes/7', { 'X-Version': '2' }],
    want: { status: 200, body: { box: 'box_a', id: 7, version: 2, fields: 'all' } },
  },
  {
    given: 'a query parameter',
    request: ['GET', '/boxes/box_a/notes/7?fields=title', { 'X-Version': '1' }],
    want: { status: 200, body: { box: 'box_a', id: 7, version: 1, fields: 'title' } },
  },
  {
    given: 'a malformed path parameter',
    request: ['GET', '/boxes/crate/notes/x', { 'X-Version': '1' }],
    want: {
      status: 422,
      errors: [
        { in: 'path', pointer: '/boxId' },
        { in: 'path', pointer: '/noteId' },
      ],
    },
  },
  {
    given: 'a missing header parameter',
    request: ['GET', '/boxes/box_a/notes/7', {}],
    want: { status: 422, errors: [{ in: 'header', pointer: '/x-version' }] },
  },
  {
    given: 'a bad header value',
    request: ['GET', '/boxes/box_a/notes/7', { 'X-Version': '3' }],
    want: { status: 422, errors: [{ in: 'header', pointer: '/x-version' }] },
  },
  {
    given: 'an unknown query parameter',
    request: ['GET', '/boxes/box_a/notes/7?feilds=all', { 'X-Version': '1' }],
    want: { status: 422, errors: [{ in: 'query', pointer: '/feilds' }] },
  },
  { given: 'a 404 thrown by the handler', request: ['GET', '/boxes/box_a/notes/404', { 'X-Version': '1' }], want: { status: 404 } },
  {
    given: 'a check the handler makes, located by the seam',
    request: ['GET', '/boxes/box_a/notes/999', { 'X-Version': '1' }],
    want: { status: 422, errors: [{ in: 'path', pointer: '/noteId' }] },
  },
  { given: 'a 204 with no body', request: ['DELETE', '/boxes/box_a/notes/7', {}], want: { status: 204 } },
  { given: 'another method on a templated path', request: ['PUT', '/boxes/box_a/notes/7', {}], want: { status: 405, allow: 'DELETE, GET, HEAD' } },
  { given: 'a path no operation has', request: ['GET', '/boxes/box_a/other', {}], want: { status: 404 } },
  { given: 'an optional body left out', request: ['POST', '/boxes', {}], want: { status: 201, body: { name: 'no body' } } },
  {
    given: 'an optional body sent, defaults filled in',
    request: ['POST', '/boxes', { 'Content-Type': 'application/json' }, '{}'],
    want: { status: 201, body: { name: 'untitled' } },
  },
  {
    given: 'an optional body with an unknown field',
    request: ['POST', '/boxes', { 'Content-Type': 'application/json' }, '{"nmae":"x"}'],
    want: { status: 422, errors: [{ in: 'body', pointer: '/nmae' }] },
  },
] as const;

describe('the operation seam binds any operation a spec declares', () => {
  it.each(cases)('$given', async ({ request, want }) => {
    const [method, path, headers, body] = request as unknown as [string, string, Record<string, string>, string | undefined];
    const response = await app().request(path, { method, headers, ...(body !== undefined && { body }) });
    expect(response.status).toBe(want.status);
    const text = await response.text();
    if ('body' in want) expect(JSON.parse(text)).toEqual(want.body);
    if ('errors' in want) expect((JSON.parse(text) as { errors: unknown[] }).errors).toEqual(want.errors.map((error) => expect.objectContaining(error)));
    if ('allow' in want) expect(response.headers.get('allow')).toBe(want.allow);
  });

  it('refuses to start when an operation of the spec has no handler', () => {
    const { createBox: _, ...missing } = handlers;
    expect(() =>
      bindOperations(new Hono(), {
        contract: compileRequestContract(spec),
        handlers: missing as typeof handlers,
        basePath: '',
        maxBodyBytes: 1,
        prepare: () => ({ user: '' }),
        write: () => new Response(),
      }),
    ).toThrow('the spec declares createBox, which has no handler');
  });
});

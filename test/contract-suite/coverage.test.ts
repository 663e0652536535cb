/**
 * Deterministic coverage before randomness (issue 31, point 4): every field's edges and, where its domain is
 * small, the whole domain, tried before any random draw, whatever `--examples` is; and writes generated in
 * volume with `--allow-writes`, each at its edges (`tag: null`, a note at its `maxLength`).
 */
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/contract/spec.js';
import { coverageValues } from '../../src/contract-suite/phases/boundaries.js';
import { runContractSuite } from '../../src/contract-suite/run.js';
import { SchemaValues } from '../../src/contract-suite/values/schema-values.js';

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const problem = (description: string) => ({ description, ...json({ type: 'object', properties: { message: { type: 'string' } } }) });
const spec = {
  openapi: '3.1.0',
  info: { title: 'Notes', version: '1' },
  paths: {
    '/notes': {
      get: {
        operationId: 'listNotes',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }],
        responses: { '200': { description: 'ok', ...json({ type: 'array', items: { $ref: '#/components/schemas/Note' } }) }, '400': problem('bad') },
      },
      post: {
        operationId: 'createNote',
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/NewNote' }) },
        responses: { '201': { description: 'made', ...json({ $ref: '#/components/schemas/Note' }) }, '400': problem('bad') },
      },
    },
    '/notes/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 }, example: 1 }],
      patch: {
        operationId: 'updateNote',
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/NewNote' }) },
        responses: { '200': { description: 'ok', ...json({ $ref: '#/components/schemas/Note' }) }, '400': problem('bad'), '404': problem('none') },
      },
    },
  },
  components: {
    schemas: {
      NewNote: {
        type: 'object',
        required: ['text'],
        additionalProperties: false,
        properties: { text: { type: 'string', minLength: 1, maxLength: 500 }, tag: { type: ['string', 'null'], maxLength: 20 } },
      },
      Note: {
        type: 'object',
        required: ['id', 'text'],
        properties: { id: { type: 'integer', readOnly: true }, text: { type: 'string' }, tag: { type: ['string', 'null'] } },
      },
    },
  },
} as unknown as OpenApiDocument;
const values = new SchemaValues(spec);

describe('coverageValues', () => {
  it('walks a small domain whole, edges first: limit 1 to 100 reaches 37', () => {
    const limit = coverageValues(spec, values, { type: 'integer', minimum: 1, maximum: 100, default: 20 }, 'query', 23);
    expect(limit.slice(0, 3)).toEqual([1, 100, 20]);
    expect([...limit].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
  });

  it('tries a larger domain at its bounds and one value inside', () => {
    expect(coverageValues(spec, values, { type: 'integer', minimum: 0, maximum: 1000 }, 'query', 1)).toEqual([0, 1000, 500]);
  });

  it('sends a string at its shortest and at its longest, and null where the body allows it', () => {
    const tag = coverageValues(spec, values, { type: ['string', 'null'], maxLength: 20 }, 'body', 1);
    expect(tag).toEqual(['', expect.any(String), null]);
    expect((tag[1] as string).length).toBe(20);
    const text = coverageValues(spec, values, { type: 'string', minLength: 1, maxLength: 500 }, 'body', 1) as string[];
    expect(text.map((value) => value.length)).toEqual([1, 500]);
    // Outside the body an empty value is no value on the wire.
    expect(coverageValues(spec, values, { type: 'string' }, 'query', 1)).not.toContain('');
  });
});

/** An in-memory notes API with one fault at a time. */
function notesApi(fault: 'limit-37' | 'tag-null' | 'long-text' | undefined): typeof fetch {
  const notes = new Map<number, { id: number; text: string; tag?: string | null }>();
  let next = 1;
  const answer = (status: number, body?: unknown) =>
    new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const [, , id] = url.pathname.split('/');
    if (request.method === 'GET') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      if (fault === 'limit-37' && limit === 37) return answer(500, { message: 'planted' });
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return answer(400, { message: 'limit' });
      return answer(200, [...notes.values()].slice(0, limit));
    }
    if (!/^[1-9]\d*$/.test(id ?? '1')) return answer(404, { message: 'none' });
    let body: { text?: unknown; tag?: unknown } | null;
    try {
      body = JSON.parse(await request.text()) as { text?: unknown; tag?: unknown } | null;
    } catch {
      return answer(400, { message: 'not JSON' });
    }
    const text = body?.text;
    if (typeof text !== 'string' || text.length < 1 || text.length > 500) return answer(400, { message: 'text' });
    if (Object.keys(body ?? {}).some((key) => key !== 'text' && key !== 'tag')) return answer(400, { message: 'unknown field' });
    if (body?.tag !== undefined && body.tag !== null && (typeof body.tag !== 'string' || body.tag.length > 20)) return answer(400, { message: 'tag' });
    if (fault === 'long-text' && text.length > 200) return answer(500, { message: 'planted' });
    if (fault === 'tag-null' && body?.tag === null) return answer(500, { message: 'planted' });
    if (request.method === 'POST') {
      const note = { id: next++, text, ...(body && 'tag' in body && { tag: body.tag as string | null }) };
      notes.set(note.id, note);
      return answer(201, note);
    }
    const note = notes.get(Number(id));
    if (!note) return answer(404, { message: 'none' });
    const changed = { ...note, text, ...(body && 'tag' in body && { tag: body.tag as string | null }) };
    notes.set(note.id, changed);
    return answer(200, changed);
  };
}

describe('the property phase, at one example', () => {
  const run = (fault: Parameters<typeof notesApi>[0]) =>
    runContractSuite({
      spec,
      baseUrl: 'http://notes.test',
      fetch: notesApi(fault),
      allowWrites: true,
      examples: 1,
      seed: 5,
      foreign: { unknownFormats: [], notes: [], openapi: '3.1.0' },
    });
  const failing = async (fault: Parameters<typeof notesApi>[0]) =>
    (await run(fault)).results
      .filter((result) => result.outcome === 'fail')
      .map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);

  it('finds nothing wrong with a correct server', async () => {
    expect(await failing(undefined)).toEqual([]);
  });

  it.each([
    ['limit-37', 'listNotes positive property-valid'],
    ['tag-null', 'updateNote positive property-valid'],
    ['long-text', 'createNote positive property-valid'],
  ] as const)('finds a 500 planted at %s', async (fault, id) => {
    const found = (await failing(fault)).find((line) => line.startsWith(id));
    expect(found, found).toMatch(/(server error|answered) 500/);
  });
});

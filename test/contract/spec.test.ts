import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOperations } from '../../src/contract/operations.js';
import { compileSpecSchema, createSpecAjv, describeErrors } from '../../src/contract/schemas.js';
import { deref, isObject, loadSpec, type Json } from '../../src/contract/spec.js';
import { run } from '../helpers/run.js';

const spec = loadSpec();
const operations = readOperations(spec);
const ajv = createSpecAjv(spec);
const scratch = mkdtempSync(join(tmpdir(), 'spec-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the OpenAPI document', () => {
  it('bundles into one self-contained OpenAPI 3.1 document', async () => {
    const output = join(scratch, 'bundle.json');
    const result = await run('redocly', ['bundle', 'main', '--config', 'redocly.yaml', '--output', output]);
    expect(result.code, result.stderr).toBe(0);
    const bundled = JSON.parse(readFileSync(output, 'utf8')) as { openapi: string; paths: object };
    expect(bundled.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(bundled.paths)).toEqual(['/', '/shared']);
  });

  it('validates with no lint errors or warnings under redocly.yaml', async () => {
    const result = await run('redocly', ['lint', '--config', 'redocly.yaml', '--format', 'json']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number } };
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('compiles every component schema under strict JSON Schema 2020-12', () => {
    const schemas = spec.components['schemas'];
    expect(isObject(schemas)).toBe(true);
    for (const name of Object.keys(schemas as object)) {
      expect(() => compileSpecSchema(ajv, { $ref: `#/components/schemas/${name}` }), name).not.toThrow();
    }
  });
});

describe('the operations', () => {
  it('are exactly the three operations of the source interface', () => {
    const declared = operations.map((operation) => `${operation.method} ${operation.path}`).sort();
    expect(declared).toEqual(['GET /shared', 'POST /', 'POST /shared']);
  });

  it.each(operations.map((operation) => [operation.operationId, operation] as const))('%s has an id, summary, description and tag', (_, operation) => {
    const raw = deref(spec, deref(spec, spec.paths[operation.path])[operation.method.toLowerCase()]);
    expect(raw['summary']).toEqual(expect.any(String));
    expect(raw['description']).toEqual(expect.any(String));
    expect(raw['tags']).toHaveLength(1);
  });

  it.each(operations.map((operation) => [operation.operationId, operation] as const))('%s is under HTTP bearer security', (_, operation) => {
    expect(operation.security).toEqual(['bearerAuth']);
    const scheme = deref(spec, deref(spec, spec.components['securitySchemes'])['bearerAuth']);
    expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('take sort, limit and cursor in the body of POSTs and the query of GET', () => {
    for (const operation of operations) {
      if (operation.method === 'POST') {
        expect(operation.requestBody?.required).toBe(true);
        expect(Object.keys(operation.requestBody?.content ?? {})).toEqual(['application/json']);
      } else {
        expect(operation.requestBody).toBeUndefined();
        expect(operation.parameters.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(['query:sort', 'query:limit', 'query:cursor']);
      }
    }
  });
});

describe('the examples', () => {
  const cases: Array<[string, Json, Json]> = [];
  for (const operation of operations) {
    for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
      for (const [name, value] of Object.entries(media.examples)) cases.push([`${operation.operationId} request ${mediaType} ${name}`, media.schema, value]);
    }
    for (const parameter of operation.parameters) {
      if (parameter.example !== undefined) cases.push([`${operation.operationId} parameter ${parameter.name}`, parameter.schema, parameter.example]);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [mediaType, media] of Object.entries(response.content)) {
        for (const [name, value] of Object.entries(media.examples)) cases.push([`${operation.operationId} ${status} ${mediaType} ${name}`, media.schema, value]);
      }
    }
  }

  it('exist for every request body and every response', () => {
    for (const operation of operations) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) expect(Object.keys(media.examples).length).toBeGreaterThan(0);
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values(response.content)) expect(Object.keys(media.examples).length, `${operation.operationId} ${response.status}`).toBeGreaterThan(0);
      }
    }
  });

  it.each(cases)('%s validates against its schema (Ajv)', (_, schema, value) => {
    const validate = compileSpecSchema(ajv, schema);
    expect(validate(value) ? [] : describeErrors(validate.errors)).toEqual([]);
  });

  it('of an error carry the status of the response they illustrate', () => {
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const media of Object.values(response.content)) {
          for (const value of Object.values(media.examples)) {
            if (isObject(value) && 'status' in value) expect(String(value['status'])).toBe(status);
          }
        }
      }
    }
  });
});

describe('the error responses', () => {
  const errors = operations.flatMap((operation) =>
    Object.values(operation.responses)
      .filter((response) => Number(response.status) >= 400)
      .map((response) => [`${operation.operationId} ${response.status}`, response] as const),
  );

  it.each(errors)('%s is application/problem+json with the Problem schema', (_, response) => {
    expect(Object.keys(response.content)).toEqual(['application/problem+json']);
    expect(response.content['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/Problem' });
  });

  it('declare WWW-Authenticate on 401 and Retry-After with the rate-limit headers on 429', () => {
    for (const operation of operations) {
      expect(operation.responses['401']?.headers['WWW-Authenticate']?.required).toBe(true);
      expect(Object.keys(operation.responses['429']?.headers ?? {}).sort()).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']);
      expect(Object.keys(operation.responses['200']?.headers ?? {}).sort()).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
    }
  });

  it('cover 400, 401, 413, 415, 422, 429, 500 and 503 on every operation that takes a body', () => {
    for (const operation of operations.filter((candidate) => candidate.requestBody)) {
      expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '413', '415', '422', '429', '500', '503']);
    }
  });

  it('document 503 with Retry-After on every operation: any request may find the database away', () => {
    for (const operation of operations) {
      expect(Object.keys(operation.responses['503']?.headers ?? {}), operation.operationId).toEqual(['Retry-After']);
    }
  });
});

import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { readContracts } from '../../src/contract/project.js';
import { HTTP_METHODS, isObject, loadSpec } from '../../src/contract/spec.js';

/**
 * Tools a consumer may point at the contracts (docs/interoperability.md). Each case is one of
 * the accommodations made for a tool, so a spec change that undoes one fails here by name.
 */
describe.each(readContracts())('$name as other tools read it', (contract) => {
  it('validates with @apidevtools/swagger-parser (no description on a server variable: its 3.1 schema misspells it)', async () => {
    await expect(SwaggerParser.validate(contract.spec)).resolves.toBeTruthy();
  });

  it('writes every request body inline, so generators such as swagger-typescript-api send its Content-Type', () => {
    const spec = loadSpec(contract.spec);
    const referenced = Object.entries(spec.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter(
        (method) => isObject(item) && isObject(item[method]) && isObject(item[method]['requestBody']) && '$ref' in item[method]['requestBody'],
      ).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(referenced, 'write these request bodies inline (redocly.yaml: rule/request-body-inline)').toEqual([]);
    expect(spec.components['requestBodies'] ?? {}).toEqual({});
  });
});

describe('the public API', () => {
  it('takes the same request body on both list operations', () => {
    const spec = loadSpec(readContracts()[0]?.spec);
    const body = (path: string) => ((spec.paths[path] as Record<string, Record<string, unknown>>)['post'] ?? {})['requestBody'];
    expect(body('/shared'), 'POST / and POST /shared take one ListRequest: keep their inline bodies equal').toEqual(body('/'));
  });
});

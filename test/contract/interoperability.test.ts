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

/**
 * Operations whose inline bodies share a schema but differ on purpose (description, examples,
 * `required`), each with its reason. Empty: today every such pair is one body written twice.
 */
const BODIES_THAT_DIFFER_ON_PURPOSE: Array<{ operations: [string, string]; reason: string }> = [];

describe.each(readContracts())('$name: request bodies written inline', (contract) => {
  it('are equal wherever they take the same schema (they were one shared body before they were inlined)', () => {
    const spec = loadSpec(contract.spec);
    const bySchema = new Map<string, Array<{ id: string; body: unknown }>>();
    for (const item of Object.values(spec.paths)) {
      for (const method of HTTP_METHODS) {
        const operation = isObject(item) ? item[method] : undefined;
        if (!isObject(operation) || !isObject(operation['requestBody'])) continue;
        const content = operation['requestBody']['content'];
        const schema = isObject(content) && isObject(content['application/json']) ? content['application/json']['schema'] : undefined;
        if (!isObject(schema) || typeof schema['$ref'] !== 'string') continue;
        const group = bySchema.get(schema['$ref']) ?? [];
        group.push({ id: String(operation['operationId']), body: operation['requestBody'] });
        bySchema.set(schema['$ref'], group);
      }
    }
    const onPurpose = (a: string, b: string) => BODIES_THAT_DIFFER_ON_PURPOSE.some(({ operations }) => operations.includes(a) && operations.includes(b));
    for (const [schema, [first, ...others]] of bySchema) {
      for (const other of others) {
        if (!first || onPurpose(first.id, other.id)) continue;
        expect(
          other.body,
          `${other.id} and ${first.id} in ${contract.spec} take ${schema}, but their inline request bodies differ. ` +
            `If the edit was meant for both, make the other one the same. If the two differ on purpose, give one its own schema, ` +
            `or tell this guard: add [${JSON.stringify(first.id)}, ${JSON.stringify(other.id)}] with the reason to BODIES_THAT_DIFFER_ON_PURPOSE in test/contract/interoperability.test.ts`,
        ).toEqual(first.body);
      }
    }
  });
});

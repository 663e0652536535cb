import { expect } from 'vitest';
import { ResponseChecker } from '../../src/contract/response-checker.js';
import { compileSpecSchema, createSpecAjv, describeErrors } from '../../src/contract/schemas.js';
import { loadSpec } from '../../src/contract/spec.js';
import { compileRequestContract, type RequestContract } from '../../src/http/request-contract.js';

/** The spec, compiled once per test file. */
export const spec = loadSpec();
export const requestContract: RequestContract = compileRequestContract(spec);
export const responseChecker = new ResponseChecker(spec);

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The spec path a request path matches (`/items/itm_…` matches `/items/{id}`), with its path parameters decoded; undefined when none does. */
export function matchRoute(path: string): { template: string; parameters: Record<string, string> } | undefined {
  if (requestContract.methodsByPath.has(path)) return { template: path, parameters: {} };
  const segments = path.split('/');
  for (const template of requestContract.methodsByPath.keys()) {
    const parts = template.split('/');
    if (parts.length !== segments.length || !parts.some((part) => part.startsWith('{'))) continue;
    const parameters: Record<string, string> = {};
    const matches = parts.every((part, index) => {
      const segment = segments[index] ?? '';
      if (!part.startsWith('{')) return part === segment;
      parameters[part.slice(1, -1)] = decodeSegment(segment);
      return segment !== '';
    });
    if (matches) return { template, parameters };
  }
  return undefined;
}

/** Operation id for a method and spec path, or undefined when the spec has none. */
export function operationIdFor(method: string, specPath: string): string | undefined {
  const upper = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return responseChecker.operations.find((operation) => operation.method === upper && operation.path === specPath)?.operationId;
}

/**
 * Asserts that a response honours the contract. For a request outside the
 * spec's operations (404, 405, 431) the answer must still be a Problem. A 5xx
 * is a violation unless the test provoked it on purpose.
 */
export function expectHonoursContract(
  operationId: string | undefined,
  response: { status: number; headers: Headers; body: string },
  serverErrorExpected = false,
): void {
  if (operationId) {
    const violations = responseChecker.check(operationId, response).filter((violation) => !(serverErrorExpected && violation.startsWith('server error')));
    expect(violations, `${operationId} answered ${response.status} ${response.body.slice(0, 300)}`).toEqual([]);
    return;
  }
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(problemViolations(response.body), response.body).toEqual([]);
}

const validateProblem = compileSpecSchema(createSpecAjv(spec), { $ref: '#/components/schemas/Problem' });

function problemViolations(body: string): string[] {
  return validateProblem(JSON.parse(body)) ? [] : describeErrors(validateProblem.errors).map((error) => `${error.pointer} ${error.detail}`);
}

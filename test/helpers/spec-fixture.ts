import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type OperationContract, readOperations } from '../../src/contract/operations.js';
import { projectRoot } from '../../src/contract/project.js';
import { deref, loadSpec } from '../../src/contract/spec.js';
import type { Sort } from '../../src/contract/types.js';

// Helpers for tests whose rows depend on the spec's operations: derive what can be derived,
// and fail with "update this fixture" where a row was written for the spec as it was.
const operations = readOperations(loadSpec());

/** The methods the spec declares on a path, upper-case and sorted (empty when the path is not in the spec). */
export function declaredMethods(path: string): string[] {
  return operations
    .filter((operation) => operation.path === path)
    .map((operation) => operation.method)
    .sort();
}

/** The `Allow` header the server must send for a path: the spec's methods on it, with HEAD wherever GET is, sorted. */
export function allowFor(path: string): string {
  const methods = declaredMethods(path);
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].sort().join(', ');
}

/** A request the server routes to an operation: path parameters are filled with their examples (or `example`). */
export interface OperationRequest {
  operation: OperationContract;
  method: string;
  /** The path to send, parameters filled in. */
  url: string;
}

/** One request per operation of the spec. */
export function operationRequests(): OperationRequest[] {
  return operations.map((operation) => ({
    operation,
    method: operation.method,
    url: operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const example = operation.parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.example;
      return encodeURIComponent(example === undefined ? 'example' : String(example));
    }),
  }));
}

/**
 * Fails, naming the fixture, unless the spec declares exactly these methods on these paths
 * (`[]`: the path must not be in the spec). For test files whose fixed rows
 * ("GET on POST-only /", "an unknown path /items") were written for the spec as it is.
 *
 * @param fixtureUrl `import.meta.url` of the test file
 */
export function assumeSpecMethods(fixtureUrl: string, assumed: Record<string, string[]>): void {
  const changed = Object.entries(assumed).filter(([path, methods]) => declaredMethods(path).join(', ') !== [...methods].sort().join(', '));
  if (changed.length === 0) return;
  const fixture = relative(projectRoot, fileURLToPath(fixtureUrl));
  const lines = changed.map(
    ([path, methods]) =>
      `  ${path}: the fixture assumes ${methods.length ? methods.join(', ') : 'no operation'}, the spec declares ${declaredMethods(path).join(', ') || 'none'}`,
  );
  throw new Error(
    `update this fixture: ${fixture} was written for the spec's paths as they were, and the spec changed:\n${lines.join('\n')}\nChange its rows (and this assumption) to fit openapi/openapi.yaml.`,
  );
}

/**
 * The bounds of the public spec's `Limit` (the page size): tests that send a smallest page or check the values a
 * field is tried with read them here, so a bound changed in the spec does not fail them with a bare diff.
 */
export const LIMIT = (() => {
  const schema = deref(loadSpec(), { $ref: '#/components/schemas/Limit' });
  const [minimum, maximum, fallback] = [schema['minimum'], schema['maximum'], schema['default']];
  if (typeof minimum !== 'number' || typeof maximum !== 'number' || typeof fallback !== 'number')
    throw new Error('the spec has no Limit with a minimum, maximum and default; update test/helpers/spec-fixture.ts');
  return { minimum, maximum, default: fallback };
})();

/**
 * The values of the public spec's `Sort` (the order of a list) and its default: tests that send a `sort`, or check
 * the values it is tried with, read them here, so a value added to or taken from the enum does not fail them.
 */
export const SORT = (() => {
  const schema = deref(loadSpec(), { $ref: '#/components/schemas/Sort' });
  const [values, fallback] = [schema['enum'], schema['default']];
  if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === 'string') || typeof fallback !== 'string')
    throw new Error('the spec has no Sort with an enum of strings and a default; update test/helpers/spec-fixture.ts');
  return { values: values as Sort[], default: fallback as Sort };
})();

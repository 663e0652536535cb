/**
 * Routes for the list operations the typecheck says `LIST_ROUTES` lacks (src/client/index.ts): a list
 * operation added to the spec (a JSON 200 with `nextCursor`, options with a `cursor`) needs its method, path
 * and where it takes its options there, the one runtime copy of the spec's routes the client holds. Each is
 * read from the spec; the `satisfies` of `LIST_ROUTES` still checks what is written against the generated types.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readOperations } from '../../src/contract/operations.js';
import type { OpenApiDocument } from '../../src/contract/spec.js';
import { appendToLiteral } from './object-literal.js';

/**
 * The typecheck's complaint that `LIST_ROUTES` lacks an operation (TS2741): the type it satisfies gives each route an
 * `options`, which a handler map's type does not. `check` and `npm run dev` name the fix by it.
 */
export const MISSING_LIST_ROUTE = /Property '(\w+)' is missing in type .*\{ options: "(?:body|query)"; \}/s;

/** The client's file of list routes, relative to the project root. */
export const CLIENT_FILE = 'src/client/index.ts';

/** The list operations the typecheck says the client's routes lack, with the line it points at. */
export function missingListRoutes(output: string): { line: number; operationIds: string[] } | undefined {
  const operationIds: string[] = [];
  let line = 0;
  for (const error of output.split('\n')) {
    // The type LIST_ROUTES satisfies gives each route an `options`; a handler map's type does not.
    const match = /^(.+?)\((\d+),\d+\): error TS(2741|2739|2740): (.*\{ options: "(?:body|query)"; \}.*)$/.exec(error.trim());
    if (!match || match[1] !== CLIENT_FILE) continue;
    const [, , row = '0', code, message = ''] = match;
    const ids =
      code === '2741'
        ? [/^Property '([^']+)' is missing/.exec(message)?.[1]]
        : (/missing the following properties from type '[^']*': (.*?)(?:, and \d+ more)?$/.exec(message)?.[1] ?? '').split(', ');
    line = Number(row);
    operationIds.push(...ids.filter((id): id is string => typeof id === 'string' && /^\w+$/.test(id)));
  }
  return operationIds.length > 0 ? { line, operationIds } : undefined;
}

/** Writes the route of each operation, read from the spec, at the end of `LIST_ROUTES`; the ids the spec does not have are returned. */
export function writeListRoutes(root: string, spec: OpenApiDocument, missing: { line: number; operationIds: string[] }): { unknown: string[] } {
  const operations = readOperations(spec);
  const routes: string[] = [];
  const unknown: string[] = [];
  for (const id of missing.operationIds) {
    const operation = operations.find((candidate) => candidate.operationId === id);
    if (!operation) {
      unknown.push(id);
      continue;
    }
    const options = operation.requestBody?.content['application/json'] ? 'body' : 'query';
    routes.push(`\n  ${id}: { method: '${operation.method.toLowerCase()}', path: '${operation.path}', options: '${options}' },`);
  }
  const path = resolve(root, CLIENT_FILE);
  const text = routes.length > 0 ? appendToLiteral(path, readFileSync(path, 'utf8'), missing.line, routes.join('')) : undefined;
  if (text === undefined) return { unknown: missing.operationIds };
  writeFileSync(path, text);
  return { unknown };
}

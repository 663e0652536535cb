import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HTTP_METHODS, isObject, loadSpec } from '../../src/contract/spec.js';

// openapi-typescript's CommonJS build, loaded with require: its `typescript` (a 9 MB CommonJS file) then
// loads without the ESM loader scanning it for named exports, which cost 0.6 s of CPU on every
// generate and drift check, a fifth of `npm run check`'s work.
const { default: openapiTS, astToString } = createRequire(import.meta.url)('openapi-typescript') as typeof import('openapi-typescript');

const header = (specPath: string) => `/**
 * GENERATED FILE, DO NOT EDIT.
 * Made by \`npm run generate\` (openapi-typescript) from openapi/${basename(specPath)}.
 * Edit the spec and regenerate; \`npm run check\` fails while this file is stale.
 */

`;

/**
 * Compiles an OpenAPI document to TypeScript types, exactly as `npm run generate`
 * writes them. The drift check calls the same function, so the two cannot disagree.
 */
export async function renderTypes(specPath: string): Promise<string> {
  const ast = await openapiTS(pathToFileURL(specPath));
  return header(specPath) + astToString(ast) + operationRoutes(specPath);
}

/**
 * Each operation's method and path by operationId, which openapi-typescript does not
 * write: a helper that takes an operationId (the client's `paginate`) keeps its one
 * runtime table of routes and checks it against this type, so a route that moves or
 * an operation that joins fails the typecheck where the table is (ADR 0032).
 */
function operationRoutes(specPath: string): string {
  const spec = loadSpec(specPath);
  const lines: string[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation['operationId'] !== 'string') continue;
      lines.push(`    ${operation['operationId']}: {\n        method: ${JSON.stringify(method)};\n        path: ${JSON.stringify(path)};\n    };`);
    }
  }
  return `/** Each operation's method and path, by operationId (written by tools/generate/render-types.ts, not by openapi-typescript). */\nexport interface operationRoutes {\n${lines.join('\n')}\n}\n`;
}

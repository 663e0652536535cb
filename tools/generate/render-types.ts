import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

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
  return header(specPath) + astToString(ast);
}

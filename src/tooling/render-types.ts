import openapiTS, { astToString } from 'openapi-typescript';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

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

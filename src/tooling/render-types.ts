import openapiTS, { astToString } from 'openapi-typescript';
import { pathToFileURL } from 'node:url';

const HEADER = `/**
 * GENERATED FILE, DO NOT EDIT.
 * Made by \`npm run generate\` (openapi-typescript) from openapi/openapi.yaml.
 * Edit the spec and regenerate; \`npm run check\` fails while this file is stale.
 */

`;

/**
 * Compiles an OpenAPI document to TypeScript types, exactly as `npm run generate`
 * writes them. The drift check calls the same function, so the two cannot disagree.
 */
export async function renderTypes(specPath: string): Promise<string> {
  const ast = await openapiTS(pathToFileURL(specPath));
  return HEADER + astToString(ast);
}

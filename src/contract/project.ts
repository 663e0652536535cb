import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Absolute path of the repository root: the nearest folder above this file with a `redocly.yaml` (works from `src/` and from the build in `dist/`). */
export const projectRoot = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(start: string): string {
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(resolve(folder, 'redocly.yaml')) && existsSync(resolve(folder, 'package.json'))) return folder;
    if (dirname(folder) === folder) throw new Error(`no redocly.yaml above ${start}`);
  }
}

export interface ContractPaths {
  /** The hand-written OpenAPI document. */
  spec: string;
  /** The TypeScript types openapi-typescript makes from it. */
  types: string;
}

interface RedoclyConfig {
  apis?: Record<string, { root?: string; 'x-openapi-ts'?: { output?: string } }>;
}

/**
 * Reads where the spec and its generated types live from `redocly.yaml`,
 * the one config that both Redocly and openapi-typescript read.
 */
export function readContractPaths(root: string = projectRoot): ContractPaths {
  const configFile = resolve(root, 'redocly.yaml');
  const config = parse(readFileSync(configFile, 'utf8')) as RedoclyConfig;
  const api = config.apis?.['main'];
  const spec = api?.root;
  const types = api?.['x-openapi-ts']?.output;
  if (!spec || !types) {
    throw new Error(`${configFile} must declare apis.main.root and apis.main.x-openapi-ts.output`);
  }
  return { spec: resolve(root, spec), types: resolve(root, types) };
}

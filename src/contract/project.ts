import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/**
 * Absolute path of the repository root: the nearest folder above this file with a `redocly.yaml` (works from `src/`
 * and from the build in `dist/`). Where there is none (the contract suite installed as a package of its own, bundled
 * away from this repository), the working folder: nothing of this project's is read there unless asked for.
 */
export const projectRoot = findRoot(dirname(fileURLToPath(import.meta.url))) ?? process.cwd();

function findRoot(start: string): string | undefined {
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(resolve(folder, 'redocly.yaml')) && existsSync(resolve(folder, 'package.json'))) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/** Whether `root` holds a project of this kind (its `redocly.yaml` lists the contracts). */
export function hasContracts(root: string = projectRoot): boolean {
  return existsSync(resolve(root, 'redocly.yaml'));
}

export interface ContractPaths {
  /** The hand-written OpenAPI document. */
  spec: string;
  /** The TypeScript types openapi-typescript makes from it. */
  types: string;
}

/** One contract of the project: its name in `redocly.yaml` (`main`, `account`) and where its files are. */
export interface Contract extends ContractPaths {
  name: string;
  /** The copy of its last release, which `npm run diff` compares the spec with (`x-released`; ADR 0012). */
  released: string;
}

interface RedoclyConfig {
  apis?: Record<string, { root?: string; 'x-openapi-ts'?: { output?: string }; 'x-released'?: string }>;
}

/**
 * Every contract `redocly.yaml` declares, in its order: where each spec and its
 * generated types live. The one config that Redocly, openapi-typescript, the
 * generator and the drift check all read.
 */
export function readContracts(root: string = projectRoot): Contract[] {
  const configFile = resolve(root, 'redocly.yaml');
  const config = parse(readFileSync(configFile, 'utf8')) as RedoclyConfig;
  const contracts = Object.entries(config.apis ?? {}).map(([name, api]) => {
    const spec = api.root;
    const types = api['x-openapi-ts']?.output;
    const released = api['x-released'];
    if (!spec || !types || !released)
      throw new Error(`${configFile} must declare apis.${name}.root, apis.${name}.x-openapi-ts.output and apis.${name}.x-released`);
    return { name, spec: resolve(root, spec), types: resolve(root, types), released: resolve(root, released) };
  });
  if (contracts.length === 0) throw new Error(`${configFile} declares no apis`);
  return contracts;
}

/**
 * Where one contract's spec and generated types live (by default `main`, the
 * public API; `account` is the web application's API).
 */
export function readContractPaths(root: string = projectRoot, name = 'main'): ContractPaths {
  const contract = readContracts(root).find((candidate) => candidate.name === name);
  if (!contract) throw new Error(`${resolve(root, 'redocly.yaml')} must declare apis.${name}.root and apis.${name}.x-openapi-ts.output`);
  return { spec: contract.spec, types: contract.types };
}

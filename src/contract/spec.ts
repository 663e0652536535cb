import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseYaml } from './parsed-yaml.js';
import { projectRoot, readContractPaths } from './project.js';

/** A JSON value as parsed from the spec. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The parsed OpenAPI document, read as plain JSON. */
export type OpenApiDocument = JsonObject & { paths: JsonObject; components: JsonObject };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Reads and parses a contract of `redocly.yaml` by its name (`main`, `account`), as the server reads it. */
export function loadContractSpec(name: string): OpenApiDocument {
  return loadSpec(readContractPaths(undefined, name).spec);
}

/** Reads and parses the OpenAPI document (by default the one `redocly.yaml` names). */
export function loadSpec(specPath: string = readContractPaths().spec): OpenApiDocument {
  const document = parseYaml(readFileSync(specPath, 'utf8'));
  if (!isObject(document) || !isObject(document['paths']) || !isObject(document['components'])) {
    throw new Error(`${specPath} is not an OpenAPI document with paths and components`);
  }
  const inProject = relative(projectRoot, resolve(specPath));
  files.set(document, inProject.startsWith('..') ? resolve(specPath) : inProject);
  return document as OpenApiDocument;
}

const files = new WeakMap<object, string>();

/** The file a spec was loaded from (relative to the project root), for messages; undefined for a spec made in memory. */
export function specFile(spec: OpenApiDocument): string | undefined {
  return files.get(spec);
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Follows local `$ref`s (`#/components/...`) until it reaches the object they name.
 * Schemas are left to Ajv; this is for responses, parameters, headers and examples.
 */
export function deref(spec: OpenApiDocument, value: Json | undefined): JsonObject {
  let current: Json | undefined = value;
  for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${current['$ref']}`);
    current = resolvePointer(spec, current['$ref']);
  }
  if (!isObject(current)) throw new Error(`expected an object in the spec, found ${JSON.stringify(current)}`);
  return current;
}

function resolvePointer(spec: OpenApiDocument, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, found ${ref}`);
  let node: Json | undefined = spec;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    // A pointer may step into a list (`#/paths/~1pet/put/parameters/2`): JSON Pointer indexes arrays by number (RFC 6901 §4).
    node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
  }
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node;
}

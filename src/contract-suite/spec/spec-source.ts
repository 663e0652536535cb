import { resolve } from 'node:path';
import { bundle, createConfig, detectSpec } from '@redocly/openapi-core';
import { formatNames } from 'ajv-formats/dist/formats.js';
import { UsageError } from '../../cli/exit.js';
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import { inlineRefsOutsideComponents } from './inline-refs.js';
import { convertOpenApi30Schemas } from './openapi-30.js';
import { UnresolvableSpec } from './unresolvable.js';

/** An OpenAPI document read for the suite, and what reading it noted. */
export interface SpecSource {
  spec: OpenApiDocument;
  /** The OpenAPI version, `3.0` or `3.1`: which rules its schemas follow. */
  version: '3.0' | '3.1';
  /** Formats its schemas use that no validator here knows (`uriref`, `blob`): accepted as any string, and noted. */
  unknownFormats: string[];
  /** What the report should say about the document itself. */
  notes: string[];
}

/** The command that turns a Swagger 2.0 document into OpenAPI 3.0, which the suite reads. */
export function swaggerConversion(file: string): string {
  return `npx swagger2openapi@7.0.8 --yaml --outfile ${file.replace(/\.(ya?ml|json)$/i, '')}.openapi.yaml ${file}`;
}

/** Formats OpenAPI defines as annotations or that Ajv's formats know. */
const KNOWN_FORMATS = new Set<string>(formatNames);

/**
 * Reads any OpenAPI 3.0 or 3.1 document, YAML or JSON, with Redocly's bundler: external `$ref`s
 * (other files, URLs) are pulled into the document, so everything after this reads local refs only, and a local
 * ref outside `components` (into `paths`) is replaced by what it points to (`inline-refs.ts`).
 * A 3.0 document's schemas are rewritten to JSON Schema 2020-12 (`openapi-30.ts`). A document
 * without `components` (or `paths`, which 3.1 allows) gets empty ones. A file that cannot be read,
 * or is not OpenAPI 3.x, is a usage error (exit 2) with a message that says why.
 */
export async function readSpecSource(file: string): Promise<SpecSource> {
  const ref = resolve(file);
  let result: Awaited<ReturnType<typeof bundle>>;
  try {
    result = await bundle({ ref, config: await createConfig({}), dereference: false });
  } catch (error) {
    throw new UsageError(`cannot read the spec ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const errors = result.problems.filter((problem) => problem.severity === 'error');
  const document = result.bundle.parsed as unknown;
  if (!isObject(document)) throw new UsageError(`${file} is not an OpenAPI document (it parses to ${JSON.stringify(typeof document)})`);
  const version = versionOf(file, document);
  // A $ref to nothing leaves a hole where a parameter or schema should be: nothing checked on it would be certain.
  // A discriminator's mapping may name a schema rather than point to it (`Option One`): the bundler reads it as a ref, the document is valid.
  const unresolved = errors.filter(
    (problem) => /resolve \$ref/i.test(problem.message) && !/\/discriminator\/mapping\//.test(problem.location[0]?.pointer ?? ''),
  );
  if (unresolved.length > 0) {
    const where = unresolved.map((problem) => `${problem.message} at ${problem.location[0]?.pointer ?? '?'}`);
    throw new UnresolvableSpec(`${file} cannot be resolved: ${where.join('; ')}`);
  }
  const notes = errors.map((problem) => `while bundling: ${problem.message}`);
  if (!isObject(document['paths'])) document['paths'] = {};
  if (!isObject(document['components'])) document['components'] = {};
  inlineRefsOutsideComponents(document);
  if (version === '3.0') convertOpenApi30Schemas(document);
  const unknownFormats = [...formatsIn(document)].filter((format) => !KNOWN_FORMATS.has(format)).sort();
  if (unknownFormats.length > 0) notes.push(`formats no validator here knows, accepted as any value of their type: ${unknownFormats.join(', ')}`);
  return { spec: document as OpenApiDocument, version, unknownFormats, notes };
}

function versionOf(file: string, document: JsonObject): '3.0' | '3.1' {
  let detected: string;
  try {
    detected = detectSpec(document);
  } catch (error) {
    throw new UsageError(`${file} is not an OpenAPI document: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (detected === 'oas3_0') return '3.0';
  if (detected === 'oas3_1') return '3.1';
  if (detected === 'oas2')
    throw new UsageError(`${file} is Swagger 2.0: the contract suite reads OpenAPI 3.0 and 3.1 documents; convert it first with: ${swaggerConversion(file)}`);
  throw new UsageError(`${file} is ${detected}: the contract suite reads OpenAPI 3.0 and 3.1 documents`);
}

/** Every `format` a schema of the document names. */
function formatsIn(node: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const entry of node) formatsIn(entry, found);
  else if (isObject(node)) {
    if (typeof node['format'] === 'string' && (node['type'] !== undefined || node['format'] !== '')) found.add(node['format']);
    for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') formatsIn(value, found);
  }
  return found;
}

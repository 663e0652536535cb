/**
 * What the reference servers share: their spec read as the suite reads it (`readSpecSource`, so a 3.0
 * document's `nullable` means what it says), request validation by that spec, and JSON answers.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { compileSpecSchema, createSpecAjv } from '../../../src/contract/schemas.js';
import type { Json, OpenApiDocument } from '../../../src/contract/spec.js';
import { readSpecSource } from '../../../src/contract-suite/spec/spec-source.js';

export interface Reference {
  spec: OpenApiDocument;
  /** Compiles a schema of the spec (inline or a `$ref`), to validate what a request sends. */
  validator: (schema: Json) => ValidateFunction;
}

export async function loadReference(file: string): Promise<Reference> {
  const { spec } = await readSpecSource(file);
  const ajv = createSpecAjv(spec, { strict: false });
  return { spec, validator: (schema) => compileSpecSchema(ajv, schema) };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

export function error(status: number, message: string, headers: Record<string, string> = {}): Response {
  return json(status, { message }, headers);
}

/** The request's JSON body validated, or the 400 that refuses it (an empty or malformed body too). */
export async function jsonBody(request: Request, validate: ValidateFunction): Promise<Record<string, unknown> | Response> {
  const text = await request.text();
  if (text === '') return error(400, 'a body is required');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return error(400, 'malformed JSON');
  }
  if (!validate(body)) return error(400, `invalid body: ${validate.errors?.map((entry) => `${entry.instancePath} ${entry.message}`).join('; ')}`);
  return body as Record<string, unknown>;
}

/** A query parameter read as an integer within bounds: its default when absent, a 400 when malformed or out of bounds. */
export function integerQuery(url: URL, name: string, bounds: { min: number; max?: number; default: number }): number | Response {
  const raw = url.searchParams.get(name);
  if (raw === null) return bounds.default;
  if (!/^-?\d+$/.test(raw)) return error(400, `${name} must be an integer`);
  const value = Number(raw);
  if (value < bounds.min || (bounds.max !== undefined && value > bounds.max)) return error(400, `${name} is out of bounds`);
  return value;
}

import { Ajv2020, type ErrorObject, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isObject, type Json, type OpenApiDocument } from './spec.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** `$id` under which the spec's `components.schemas` are registered with Ajv. */
const COMPONENTS_ID = 'urn:contract:components';

/** OpenAPI annotations that are not JSON Schema keywords; Ajv must know them to stay strict. */
const OPENAPI_ANNOTATIONS = ['example', 'xml', 'externalDocs', 'discriminator'];

/**
 * Makes an Ajv (JSON Schema 2020-12, with formats) that knows every schema of the
 * spec's `components`, so any schema of the spec can be compiled as it is written.
 */
export function createSpecAjv(spec: OpenApiDocument, options: Options = {}): Ajv2020 {
  // Every schema is still held to the meta-schema, by `checkSchema`'s one Ajv (see there), unless `options` says not to.
  const checked = options.validateSchema !== false;
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, ...options, validateSchema: false });
  addFormats(ajv);
  for (const keyword of OPENAPI_ANNOTATIONS) ajv.addKeyword({ keyword });
  const schemas = componentSchemas(spec);
  const components = { $id: COMPONENTS_ID, $defs: pointRefsAtComponents(schemas, schemas) as Record<string, Json> };
  if (checked) checkSchema(components);
  ajv.addSchema(components);
  settingsByAjv.set(ajv, { components: schemas, checked });
  return ajv;
}

const settingsByAjv = new WeakMap<Ajv2020, { components: Record<string, Json>; checked: boolean }>();

/** The Ajv that holds schemas to JSON Schema 2020-12's meta-schema, made on first use. */
let metaSchemaAjv: Ajv2020 | undefined;

/**
 * Throws unless `schema` is a valid JSON Schema 2020-12, with Ajv's own message (`schema is invalid: ...`). Ajv
 * compiles the meta-schema once per instance to check a schema, about 0.1 s of CPU; a server makes ten instances
 * (request and response validators of two contracts, each with its own options), so the check is done here, by one
 * instance for the whole process, and the others are made with `validateSchema: false`.
 */
export function checkSchema(schema: object): void {
  metaSchemaAjv ??= addFormats(new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }));
  if (!metaSchemaAjv.validateSchema(schema)) throw new Error(`schema is invalid: ${metaSchemaAjv.errorsText(metaSchemaAjv.errors)}`);
}

function componentSchemas(spec: OpenApiDocument): Record<string, Json> {
  return isObject(spec.components['schemas']) ? spec.components['schemas'] : {};
}

/** Compiles one schema taken from the spec (inline or a `$ref`). */
export function compileSpecSchema(ajv: Ajv2020, schema: Json): ValidateFunction {
  const settings = settingsByAjv.get(ajv);
  const pointed = pointRefsAtComponents(schema, settings?.components ?? {}) as object;
  if (settings?.checked !== false) checkSchema(pointed);
  return ajv.compile(pointed);
}

/**
 * Rewrites `#/components/schemas/X` to the registered `$defs` so refs resolve
 * outside the document. A referenced schema's `default` is copied beside the
 * `$ref`, because Ajv's `useDefaults` only reads defaults it finds directly
 * under `properties`, and the spec keeps them on the shared component.
 */
function pointRefsAtComponents(schema: Json, components: Record<string, Json>): Json {
  if (Array.isArray(schema)) return schema.map((entry) => pointRefsAtComponents(entry, components));
  if (!isObject(schema)) return schema;
  const result: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(LOCAL_PREFIX)) {
      const name = value.slice(LOCAL_PREFIX.length);
      result[key] = `${COMPONENTS_ID}#/$defs/${name}`;
      const target = components[name];
      if (isObject(target) && target['default'] !== undefined && schema['default'] === undefined) result['default'] = target['default'];
    } else {
      result[key] = pointRefsAtComponents(value, components);
    }
  }
  return result;
}

const LOCAL_PREFIX = '#/components/schemas/';

/** One way in which a value broke its schema, located by a JSON pointer. */
export interface SchemaViolation {
  pointer: string;
  detail: string;
}

/**
 * Turns Ajv's errors into one readable violation per problem. Unknown fields and
 * missing fields point at the field itself rather than at its parent.
 */
export function describeErrors(errors: ErrorObject[] | null | undefined): SchemaViolation[] {
  const violations: SchemaViolation[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    const violation = describeError(error);
    if (!violation) continue;
    const key = `${violation.pointer}\u0000${violation.detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(violation);
  }
  return violations;
}

function describeError(error: ErrorObject): SchemaViolation | undefined {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return { pointer: `${error.instancePath}/${escapePointer(String(params['additionalProperty']))}`, detail: 'is not a known field' };
    case 'required':
      return { pointer: `${error.instancePath}/${escapePointer(String(params['missingProperty']))}`, detail: 'is required' };
    case 'enum':
      return { pointer: error.instancePath, detail: `must be one of: ${(params['allowedValues'] as unknown[]).join(', ')}` };
    case 'oneOf':
    case 'anyOf':
      // The branch errors say what is wrong; the summary adds nothing.
      return undefined;
    default:
      return { pointer: error.instancePath, detail: error.message ?? `fails ${error.keyword}` };
  }
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

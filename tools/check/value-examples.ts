import { compileSpecSchema, createSpecAjv, describeErrors } from '../../src/contract/schemas.js';
import { deref, HTTP_METHODS, isObject, type Json, type JsonObject, type OpenApiDocument } from '../../src/contract/spec.js';
import { pointerSegment } from './spec-locations.js';

/**
 * One `example` (or entry of `examples`) of a header or parameter. Redocly checks the
 * examples of bodies, but a header's example is served by the mock all the same.
 */
export interface ValueExample {
  /** `header RateLimit-Limit` or `parameter limit (query)`. */
  subject: string;
  /** Where the header or parameter is declared. */
  declaredAt: string;
  /** Where the example value is written (a shared example's own place when it is a `$ref`). */
  valueAt: string;
  schema: Json;
  value: Json;
}

/** Every header and parameter example in the spec: in components, in responses, in encodings and inline in operations. */
export function listValueExamples(spec: OpenApiDocument): ValueExample[] {
  const found: ValueExample[] = [];
  const visitHeaders = (headers: Json | undefined, at: string) => {
    for (const [name, header] of Object.entries(isObject(headers) ? headers : {})) {
      // A `$ref` is checked where it points, once.
      if (isObject(header) && header['$ref'] === undefined) found.push(...examplesOf(spec, `header ${name}`, header, `${at}/${pointerSegment(name)}`));
    }
  };
  const visitParameters = (parameters: Json | undefined, at: string) => {
    const entries: Array<[string, Json]> = Array.isArray(parameters)
      ? parameters.map((entry, index) => [String(index), entry])
      : Object.entries(isObject(parameters) ? parameters : {});
    for (const [key, parameter] of entries) {
      if (!isObject(parameter) || parameter['$ref'] !== undefined) continue;
      found.push(...examplesOf(spec, `parameter ${String(parameter['name'])} (${String(parameter['in'])})`, parameter, `${at}/${pointerSegment(key)}`));
    }
  };
  const visitContent = (content: Json | undefined, at: string) => {
    for (const [mediaType, media] of Object.entries(isObject(content) ? content : {})) {
      const encoding = isObject(media) ? media['encoding'] : undefined;
      for (const [property, entry] of Object.entries(isObject(encoding) ? encoding : {})) {
        if (isObject(entry)) visitHeaders(entry['headers'], `${at}/${pointerSegment(mediaType)}/encoding/${pointerSegment(property)}/headers`);
      }
    }
  };
  const visitResponses = (responses: Json | undefined, at: string) => {
    for (const [status, response] of Object.entries(isObject(responses) ? responses : {})) {
      if (!isObject(response) || response['$ref'] !== undefined) continue;
      visitHeaders(response['headers'], `${at}/${pointerSegment(status)}/headers`);
      visitContent(response['content'], `${at}/${pointerSegment(status)}/content`);
    }
  };
  const visitRequestBody = (body: Json | undefined, at: string) => {
    if (isObject(body) && body['$ref'] === undefined) visitContent(body['content'], `${at}/content`);
  };
  const visitPathItems = (pathItems: Json | undefined, at: string) => {
    for (const [path, pathItem] of Object.entries(isObject(pathItems) ? pathItems : {})) {
      if (!isObject(pathItem) || pathItem['$ref'] !== undefined) continue;
      const itemAt = `${at}/${pointerSegment(path)}`;
      visitParameters(pathItem['parameters'], `${itemAt}/parameters`);
      for (const method of HTTP_METHODS) {
        const operation = pathItem[method];
        if (!isObject(operation)) continue;
        visitParameters(operation['parameters'], `${itemAt}/${method}/parameters`);
        visitRequestBody(operation['requestBody'], `${itemAt}/${method}/requestBody`);
        visitResponses(operation['responses'], `${itemAt}/${method}/responses`);
      }
    }
  };

  const components = spec.components;
  visitHeaders(components['headers'], '#/components/headers');
  visitParameters(components['parameters'], '#/components/parameters');
  visitResponses(components['responses'], '#/components/responses');
  for (const [name, body] of Object.entries(isObject(components['requestBodies']) ? components['requestBodies'] : {}))
    visitRequestBody(body, `#/components/requestBodies/${pointerSegment(name)}`);
  visitPathItems(components['pathItems'], '#/components/pathItems');
  visitPathItems(spec.paths, '#/paths');
  visitPathItems(spec['webhooks'], '#/webhooks');
  return found;
}

/** The examples of one header or parameter object, with the schema they must follow. */
function examplesOf(spec: OpenApiDocument, subject: string, declared: JsonObject, declaredAt: string): ValueExample[] {
  // A header or parameter has either a `schema` or a `content` map with exactly one media type.
  let holder: JsonObject = declared;
  let holderAt = declaredAt;
  if (declared['schema'] === undefined && isObject(declared['content'])) {
    const [mediaType, media] = Object.entries(declared['content'])[0] ?? [];
    if (mediaType === undefined || !isObject(media)) return [];
    holder = media;
    holderAt = `${declaredAt}/content/${pointerSegment(mediaType)}`;
  }
  const schema = holder['schema'];
  if (schema === undefined) return [];
  const examples: ValueExample[] = [];
  if (holder['example'] !== undefined) examples.push({ subject, declaredAt, valueAt: `${holderAt}/example`, schema, value: holder['example'] });
  for (const [name, entry] of Object.entries(isObject(holder['examples']) ? holder['examples'] : {})) {
    const ref = isObject(entry) && typeof entry['$ref'] === 'string' ? entry['$ref'] : undefined;
    const example = deref(spec, entry);
    if (example['value'] === undefined) continue; // externalValue: nothing here to check
    examples.push({
      subject: `${subject} example ${name}`,
      declaredAt,
      valueAt: `${ref ?? `${holderAt}/examples/${pointerSegment(name)}`}/value`,
      schema,
      value: example['value'],
    });
  }
  return examples;
}

/** An example that breaks its schema. */
export interface ExampleViolation {
  example: ValueExample;
  /** What Ajv says is wrong, one entry per problem. */
  problems: string[];
}

/**
 * Validates each example against its schema. Headers and parameters travel as
 * strings, so `"600"` must pass an `integer` schema: types are coerced, as
 * `ResponseChecker` does for the headers it reads off the wire.
 */
export function findInvalidValueExamples(spec: OpenApiDocument, examples: ValueExample[] = listValueExamples(spec)): ExampleViolation[] {
  const ajv = createSpecAjv(spec, { coerceTypes: true });
  const violations: ExampleViolation[] = [];
  for (const example of examples) {
    const validate = compileSpecSchema(ajv, example.schema);
    // Coercion rewrites the value in place, so validate a copy.
    if (validate(structuredClone(example.value))) continue;
    violations.push({ example, problems: describeErrors(validate.errors).map((error) => `${error.pointer ? `${error.pointer} ` : ''}${error.detail}`) });
  }
  return violations;
}

import type { Options, ValidateFunction } from 'ajv/dist/2020.js';
import type { OperationContract } from '../contract/operations.js';
import type { ObservedResponse } from '../contract/response-checker.js';
import { compileSpecSchema, createSpecAjv, describeErrors } from '../contract/schemas.js';
import type { Json, OpenApiDocument } from '../contract/spec.js';

/**
 * Checks the answers the spec decides for the whole API rather than per
 * operation (404 for an unknown path, 405 for another method). No operation
 * documents them, so the `ResponseChecker` cannot; instead they must look like
 * the operation's own errors: the content type and schema of its documented 4xx
 * answers (the Problem envelope, for this spec).
 */
export class ApiWideAnswers {
  readonly #ajv;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(spec: OpenApiDocument, ajv: Options = {}) {
    this.#ajv = createSpecAjv(spec, ajv);
  }

  check(operation: OperationContract, response: ObservedResponse): string[] {
    const violations: string[] = [];
    if (response.status >= 500) violations.push(`server error ${response.status}`);
    const shapes = errorShapes(operation);
    if (shapes.size === 0) return violations;
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const schema = shapes.get(contentType);
    if (schema === undefined) {
      violations.push(`content type ${JSON.stringify(contentType)} is not the one of the operation's other errors (${[...shapes.keys()].join(', ')})`);
      return violations;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      violations.push(`body is not valid JSON: ${JSON.stringify(response.body.slice(0, 200))}`);
      return violations;
    }
    const validate = this.#validator(schema);
    if (!validate(body))
      for (const error of describeErrors(validate.errors))
        violations.push(`body${error.pointer || ' (root)'} ${error.detail} (the shape of the operation's other errors)`);
    return violations;
  }

  #validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.#validators.get(key);
    if (!validate) {
      validate = compileSpecSchema(this.#ajv, schema);
      this.#validators.set(key, validate);
    }
    return validate;
  }
}

/** The media types and schemas of the operation's documented 4xx answers. */
function errorShapes(operation: OperationContract): Map<string, Json> {
  const shapes = new Map<string, Json>();
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!status.startsWith('4')) continue;
    for (const [mediaType, media] of Object.entries(response.content)) if (!shapes.has(mediaType)) shapes.set(mediaType, media.schema);
  }
  return shapes;
}

import type { Ajv2020, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { documentedMediaType, isJsonMediaType } from './media-types.js';
import { type OperationContract, type ReadOptions, readOperations } from './operations.js';
import { compileSpecSchema, createSpecAjv, describeErrors } from './schemas.js';
import type { Json, OpenApiDocument } from './spec.js';

/** What a response looked like on the wire. */
export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** The raw body text ('' when there is none). */
  body: string;
}

export interface CheckerOptions {
  /** More Ajv options: a foreign spec's schemas are compiled without strict mode (`strict: false`, its unknown formats). */
  ajv?: Options;
  read?: ReadOptions;
}

/** What a check found: the violations, and what it could not check and why (a body of a media type read by its content type only). */
export interface CheckOutcome {
  violations: string[];
  notes: string[];
}

/**
 * Checks responses against the spec the way Schemathesis does: the status is
 * documented for the operation, the content type is documented, the body
 * validates against the schema for that status, and the required headers are
 * present and valid.
 *
 * Each validator is compiled the first time an answer needs it, then kept. Compiling every
 * response schema of a spec up front took about half a second of every server start in strict
 * mode (the tests start a dozen servers, `npm run dev` one per save), mostly for answers a
 * process never sends. A schema Ajv cannot compile still fails early: `npm run check` compiles
 * every schema that has an example, and the contract suite provokes every documented answer.
 */
export class ResponseChecker {
  readonly operations: OperationContract[];
  readonly #bodies: LazyValidators;
  readonly #headers: LazyValidators;

  constructor(spec: OpenApiDocument, options: CheckerOptions = {}) {
    // Headers arrive as strings; coercion lets `integer` header schemas apply.
    this.#bodies = new LazyValidators(createSpecAjv(spec, options.ajv));
    this.#headers = new LazyValidators(createSpecAjv(spec, { ...options.ajv, coerceTypes: true }));
    this.operations = readOperations(spec, options.read);
    for (const operation of this.operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [mediaType, media] of Object.entries(response.content)) {
          this.#bodies.define(`${operation.operationId} ${status} ${mediaType}`, media.schema);
        }
        for (const [name, header] of Object.entries(response.headers)) {
          this.#headers.define(`${operation.operationId} ${status} ${name.toLowerCase()}`, header.schema);
        }
      }
    }
  }

  /** Finds the operation a method and spec path belong to. */
  operation(operationId: string): OperationContract {
    const operation = this.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation) throw new Error(`the spec has no operation ${operationId}`);
    return operation;
  }

  /** Returns every way the response breaks the contract of the operation (empty when it honours it). */
  check(operationId: string, response: ObservedResponse): string[] {
    return this.#inspect(operationId, response, false).violations;
  }

  /**
   * `check`, with notes on what could not be checked: a body that is not JSON is checked by its
   * content type only, and a schema Ajv cannot compile (a foreign spec's) is noted rather than thrown.
   */
  inspect(operationId: string, response: ObservedResponse): CheckOutcome {
    return this.#inspect(operationId, response, true);
  }

  #inspect(operationId: string, response: ObservedResponse, tolerant: boolean): CheckOutcome {
    const operation = this.operation(operationId);
    const violations: string[] = [];
    const notes: string[] = [];
    const outcome = { violations, notes };
    if (response.status >= 500) violations.push(`server error ${response.status}`);
    const status = String(response.status);
    const documented = operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses['default'];
    // OpenAPI 3.1 lets an operation document no answer at all: then no status is wrong.
    if (Object.keys(operation.responses).length === 0) return outcome;
    if (!documented) {
      violations.push(`status ${status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(', ')})`);
      return outcome;
    }
    const statusKey = documented.status;

    for (const [name, header] of Object.entries(documented.headers)) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) violations.push(`required header ${name} is missing`);
        continue;
      }
      const validate = this.#compiled(this.#headers, `${operation.operationId} ${statusKey} ${name.toLowerCase()}`, tolerant, notes);
      if (validate && !validate(value)) {
        violations.push(
          `header ${name}: ${JSON.stringify(value)} ${describeErrors(validate.errors)
            .map((error) => error.detail)
            .join('; ')}`,
        );
      }
    }

    const mediaTypes = Object.keys(documented.content);
    if (mediaTypes.length === 0) {
      if (response.body !== '') violations.push(`status ${status} documents no body, but one was sent`);
      return outcome;
    }
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const mediaType = documentedMediaType(mediaTypes, contentType);
    if (mediaType === undefined) {
      violations.push(`content type ${JSON.stringify(contentType)} is not documented for ${status} (documented: ${mediaTypes.join(', ')})`);
      return outcome;
    }
    if (!isJsonMediaType(contentType)) {
      // XML, text, images: no schema language of ours reads them, so the content type is all that is checked.
      notes.push(`a ${contentType} body is checked by its content type only`);
      return outcome;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      violations.push(`body is not valid JSON: ${JSON.stringify(response.body.slice(0, 200))}`);
      return outcome;
    }
    const validate = this.#compiled(this.#bodies, `${operation.operationId} ${statusKey} ${mediaType}`, tolerant, notes);
    if (validate && !validate(body)) {
      for (const error of describeErrors(validate.errors)) {
        violations.push(`body${error.pointer || ' (root)'} ${error.detail}`);
      }
    }
    return outcome;
  }

  #compiled(validators: LazyValidators, name: string, tolerant: boolean, notes: string[]): ValidateFunction | undefined {
    if (!tolerant) return validators.get(name);
    try {
      return validators.get(name);
    } catch (error) {
      notes.push(`the schema of ${name} could not be compiled, so it was not checked: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }
}

/** Schemas by name, each compiled on its first use with one Ajv instance and kept. */
class LazyValidators {
  readonly #ajv: Ajv2020;
  readonly #schemas = new Map<string, Json>();
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(ajv: Ajv2020) {
    this.#ajv = ajv;
  }

  define(name: string, schema: Json): void {
    this.#schemas.set(name, schema);
  }

  get(name: string): ValidateFunction | undefined {
    let validate = this.#compiled.get(name);
    if (validate === undefined) {
      const schema = this.#schemas.get(name);
      if (schema === undefined) return undefined;
      validate = compileSpecSchema(this.#ajv, schema);
      this.#compiled.set(name, validate);
    }
    return validate;
  }
}

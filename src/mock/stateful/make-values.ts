/**
 * The values a server makes that a request does not send, made as the schema says: a new id (the next
 * integer of a collection, a UUID, or a random value of the id's pattern such as `key_` and 16 characters),
 * and `now` for the moments it stamps (`createdAt`).
 */
import { randomUUID } from 'node:crypto';
import type { Json, OpenApiDocument } from '../../contract/spec.js';
import { resolveSchema } from '../../contract-suite/values/schema-refs.js';
import { SchemaValues } from '../../contract-suite/values/schema-values.js';

export class ValueMaker {
  readonly #spec: OpenApiDocument;
  readonly values: SchemaValues;

  constructor(spec: OpenApiDocument) {
    this.#spec = spec;
    // A foreign spec's schemas are read without Ajv's strict mode, as the contract suite reads them.
    this.values = new SchemaValues(spec, { strict: false });
  }

  /** A new id for a collection whose ids are `taken`: integers count on from the highest, anything else is random. */
  newId(schema: Json, taken: Iterable<string>): Json {
    const resolved = resolveSchema(this.#spec, schema);
    const types = Array.isArray(resolved['type']) ? resolved['type'] : [resolved['type']];
    if (types.includes('integer') || types.includes('number')) {
      const numbers = [...taken].map(Number).filter(Number.isFinite);
      const floor = typeof resolved['minimum'] === 'number' ? resolved['minimum'] - 1 : 0;
      return Math.max(floor, ...numbers) + 1;
    }
    if (resolved['format'] === 'uuid') return randomUUID();
    const taken_ = new Set(taken);
    for (let attempt = 0; attempt < 5; attempt++) {
      const value = this.values.unguessable(schema);
      if (value !== undefined && !taken_.has(String(value))) return value;
    }
    return randomUUID();
  }

  /** A moment as the spec writes them: RFC 3339 in UTC with milliseconds. */
  now(): string {
    return new Date().toISOString();
  }
}

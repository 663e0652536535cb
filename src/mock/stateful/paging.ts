/**
 * Pages over stored items, in the way the spec's list operation pages: a cursor (`cursor` in, `nextCursor`
 * out), an offset and a limit, or a page number; read from the names and schemas of its query parameters and
 * of its answer. The mock's cursor is the offset, base64url-encoded: opaque to a client, as the spec asks.
 */
import type { OperationContract } from '../../contract/operations.js';
import type { Json, JsonObject, OpenApiDocument } from '../../contract/spec.js';
import { resolveSchema } from '../../contract-suite/values/schema-refs.js';
import { objectProperties } from './schema-shapes.js';

export interface Paging {
  limit?: { name: string; default?: number; maximum?: number };
  cursor?: { name: string };
  offset?: { name: string };
  page?: { name: string; first: number };
  /** The answer's field for the next page's cursor (`nextCursor`). */
  next?: string;
  /** Whether the last page says so with `null` in that field (else it leaves the field out). */
  nextNullable?: boolean;
  /** The answer's field for the count of every item (`total`). */
  total?: string;
}

export function pagingOf(spec: OpenApiDocument, operation: OperationContract, answer: Json | undefined): Paging {
  const query = operation.parameters.filter((parameter) => parameter.in === 'query');
  const named = (pattern: RegExp) => query.find((parameter) => pattern.test(parameter.name));
  const paging: Paging = {};
  const limit = named(/^(limit|page_?size|per_?page|size|max_?results|count|first)$/i);
  if (limit) {
    const schema = resolveSchema(spec, limit.schema);
    paging.limit = {
      name: limit.name,
      ...(typeof schema['default'] === 'number' && { default: schema['default'] }),
      ...(typeof schema['maximum'] === 'number' && { maximum: schema['maximum'] }),
    };
  }
  const cursor = named(/cursor|page_?token|^after$|continuation/i);
  if (cursor) paging.cursor = { name: cursor.name };
  const offset = named(/^(offset|skip|start)$/i);
  if (offset) paging.offset = { name: offset.name };
  const page = named(/^page(_?number)?$/i);
  if (page) {
    const minimum = resolveSchema(spec, page.schema)['minimum'];
    paging.page = { name: page.name, first: typeof minimum === 'number' ? minimum : 1 };
  }
  const fields = Object.keys(objectProperties(spec, answer));
  const next =
    fields.find((name) => /^next(_?cursor|_?page_?token)?$/i.test(name)) ?? (paging.cursor ? fields.find((name) => /cursor/i.test(name)) : undefined);
  if (next) {
    paging.next = next;
    paging.nextNullable = nullable(spec, objectProperties(spec, answer)[next]);
  }
  const total = fields.find((name) => /^(total|total_?count|count)$/i.test(name));
  if (total) paging.total = total;
  return paging;
}

/** One page of the items, and the cursor of the next (null on the last page). */
export function pageOf<T>(items: readonly T[], paging: Paging, query: URLSearchParams): { page: T[]; next: string | null; start: number } {
  const asked = paging.limit ? Number(query.get(paging.limit.name) ?? Number.NaN) : Number.NaN;
  const size = Number.isInteger(asked) && asked > 0 ? asked : (paging.limit?.default ?? items.length);
  let start = 0;
  const cursor = paging.cursor ? query.get(paging.cursor.name) : null;
  if (cursor) start = offsetIn(cursor);
  else if (paging.offset) start = Math.max(0, Number(query.get(paging.offset.name) ?? 0) || 0);
  else if (paging.page) start = Math.max(0, (Number(query.get(paging.page.name) ?? paging.page.first) || paging.page.first) - paging.page.first) * size;
  const page = items.slice(start, start + size);
  const end = start + page.length;
  return { page, next: end < items.length ? cursorFor(end) : null, start };
}

/** The answer's paging fields set for this page: the next cursor (null, or left out when it may not be null) and the total. */
export function withPagingFields(answer: JsonObject, paging: Paging, next: string | null, total: number): JsonObject {
  const out = { ...answer };
  if (paging.next !== undefined) {
    if (next !== null) out[paging.next] = next;
    else if (paging.nextNullable) out[paging.next] = null;
    else delete out[paging.next];
  }
  if (paging.total !== undefined && typeof answer[paging.total] === 'number') out[paging.total] = total;
  return out;
}

/** Whether a schema takes `null` (3.1's `type: [..., 'null']` or a `null` branch, 3.0's `nullable`). */
function nullable(spec: OpenApiDocument, schema: Json | undefined): boolean {
  const resolved = resolveSchema(spec, schema);
  if (resolved['nullable'] === true || resolved['type'] === 'null' || (Array.isArray(resolved['type']) && resolved['type'].includes('null'))) return true;
  const branches = [...(Array.isArray(resolved['oneOf']) ? resolved['oneOf'] : []), ...(Array.isArray(resolved['anyOf']) ? resolved['anyOf'] : [])];
  return branches.some((branch) => nullable(spec, branch));
}

function cursorFor(offset: number): string {
  return Buffer.from(`o${offset}`).toString('base64url');
}

function offsetIn(cursor: string): number {
  const match = /^o(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match?.[1] ? Number(match[1]) : 0;
}

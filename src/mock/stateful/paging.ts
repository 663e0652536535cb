/**
 * Pages over stored items, in the way the spec's list operation pages: a cursor (`cursor` in, `nextCursor`
 * out), an offset and a limit, or a page number; read from the names and schemas of its query parameters and
 * of its answer. The mock's cursor is the offset, base64url-encoded: opaque to a client, as the spec asks. Like the
 * server's, it is bound to the query it was made for (every parameter but the paging ones, as a digest:
 * `list-options.ts`), and a cursor it did not make, or made for other filters, is refused rather than read as the start.
 */
import type { OperationContract } from '../../contract/operations.js';
import type { Json, JsonObject, OpenApiDocument } from '../../contract/spec.js';
import { resolveSchema } from '../../contract-suite/values/schema-refs.js';
import { boundOptionsDigest } from '../../http/list-options.js';
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

/** One page of the items, and the cursor of the next (null on the last page); or why the request's cursor is refused. */
export function pageOf<T>(
  items: readonly T[],
  paging: Paging,
  query: URLSearchParams,
): { page: T[]; next: string | null; start: number } | { refused: { parameter: string; detail: string } } {
  const asked = paging.limit ? Number(query.get(paging.limit.name) ?? Number.NaN) : Number.NaN;
  const size = Number.isInteger(asked) && asked > 0 ? asked : (paging.limit?.default ?? items.length);
  const filters = filtersOf(paging, query);
  let start = 0;
  const cursor = paging.cursor ? query.get(paging.cursor.name) : null;
  if (cursor && paging.cursor) {
    const position = positionIn(cursor);
    if (position === undefined) return { refused: { parameter: paging.cursor.name, detail: 'is not a cursor of this list; take it from the previous page' } };
    if (position.filters !== filters)
      return { refused: { parameter: paging.cursor.name, detail: 'was issued for other filters; send the same filters as the first page' } };
    start = position.offset;
  } else if (paging.offset) start = Math.max(0, Number(query.get(paging.offset.name) ?? 0) || 0);
  else if (paging.page) start = Math.max(0, (Number(query.get(paging.page.name) ?? paging.page.first) || paging.page.first) - paging.page.first) * size;
  const page = items.slice(start, start + size);
  const end = start + page.length;
  return { page, next: end < items.length ? cursorFor(end, filters) : null, start };
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

/** The digest of the query's parameters other than the paging ones (a repeated one with all its values), or undefined when there are none. */
function filtersOf(paging: Paging, query: URLSearchParams): string | undefined {
  const unbound = new Set([paging.limit?.name, paging.cursor?.name, paging.offset?.name, paging.page?.name].filter((name) => name !== undefined));
  const options: Record<string, string | string[]> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    options[name] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return boundOptionsDigest(options, unbound);
}

function cursorFor(offset: number, filters: string | undefined): string {
  return Buffer.from(filters === undefined ? `o${offset}` : `o${offset}.${filters}`).toString('base64url');
}

function positionIn(cursor: string): { offset: number; filters: string | undefined } | undefined {
  const match = /^o(\d+)(?:\.([0-9a-z]+))?$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match?.[1] ? { offset: Number(match[1]), filters: match[2] } : undefined;
}

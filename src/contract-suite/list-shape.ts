import type { OperationContract } from '../contract/operations.js';
import { isObject, type OpenApiDocument } from '../contract/spec.js';
import type { LiveValue } from './case.js';
import type { Field } from './field.js';
import { resolveSchema } from './values/schema-refs.js';

/**
 * What a list operation's options mean, for the checks only lists have: page
 * size, order, and a walk over every page. Read from the spec; the defaults here
 * only apply where the spec is silent.
 */
export interface ListShape {
  /** Where `sort`, `limit` and `cursor` go: the JSON body (POST) or the query string (GET). */
  location: 'body' | 'query';
  sortValues: string[];
  defaultSort: string;
  defaultLimit: number;
  minLimit: number;
  maxLimit: number;
  /** The field that continues a list (`cursor`), if the operation takes one. */
  cursor?: string;
}

/**
 * Undefined unless the operation's 200 answer is a page: an object with `items`
 * and `nextCursor`. The suite's order and walk checks mean nothing for anything else.
 */
export function listShape(
  spec: OpenApiDocument,
  facts: { operation: OperationContract; fields: readonly Field[]; continuations: ReadonlyMap<string, LiveValue> },
): ListShape | undefined {
  const page = resolveSchema(spec, facts.operation.responses['200']?.content['application/json']?.schema);
  const pageProperties = isObject(page['properties']) ? page['properties'] : {};
  if (!('items' in pageProperties) || !('nextCursor' in pageProperties)) return undefined;
  const options = facts.fields.filter((field) => field.location === 'body' || field.location === 'query');
  const location = options.some((field) => field.location === 'body') ? 'body' : 'query';
  const at = (name: string) => options.find((field) => field.location === location && field.name === name)?.resolved ?? {};
  const sort = at('sort');
  const limit = at('limit');
  const sortValues = Array.isArray(sort['enum']) ? sort['enum'].map(String) : [];
  const cursor = [...facts.continuations.values()].find((value) => value.location === location)?.name;
  return {
    location,
    sortValues,
    defaultSort: typeof sort['default'] === 'string' ? sort['default'] : (sortValues[0] ?? 'asc'),
    defaultLimit: typeof limit['default'] === 'number' ? limit['default'] : 20,
    minLimit: typeof limit['minimum'] === 'number' ? limit['minimum'] : 1,
    maxLimit: typeof limit['maximum'] === 'number' ? limit['maximum'] : 100,
    ...(cursor !== undefined && { cursor }),
  };
}

import { isObject, type Json, type OpenApiDocument } from '../contract/spec.js';
import type { Harvest } from './values/schema-refs.js';

/**
 * What the caller owns, learned from its own answers rather than guessed from the shape of an id: the ids
 * of the items a list of a collection (`GET /pets`) answered the caller with, and the id a create of it
 * (`POST /pets`) answered. Kept in the run's harvest under `owned <collection path>`, beside the ids kept by
 * component, so that another credential's run (which starts with an empty harvest) never mixes them in.
 */
const PREFIX = 'owned ';

/** The collection an item's path parameter names an item of: `/pets/{id}/notes` → `/pets` for `id`. */
export function collectionOf(path: string, parameter: string): string | undefined {
  const at = path.indexOf(`/{${parameter}}`);
  return at > 0 ? path.slice(0, at) : undefined;
}

/** The ids the caller's answers showed for items of `collection`. */
export function ownedIn(harvest: Harvest, collection: string): Json[] {
  return harvest.get(`${PREFIX}${collection}`) ?? [];
}

/** Records the ids of a 2xx answer to a list (`GET /pets`) or a create (`POST /pets`) of a collection as the caller's. */
export function rememberOwned(spec: OpenApiDocument, method: string, path: string, body: Json | undefined, into: Harvest): void {
  if (path.endsWith('}') || (method !== 'GET' && method !== 'POST') || body === undefined) return;
  const ids = method === 'GET' ? listedIds(spec, path, body) : idsOf(spec, path, [body]);
  if (ids.length === 0) return;
  const known = into.get(`${PREFIX}${path}`) ?? [];
  into.set(`${PREFIX}${path}`, [...new Set([...known, ...ids])]);
}

/** The ids of the items a list of the collection at `path` answered with. */
export function listedIds(spec: OpenApiDocument, path: string, body: Json): Json[] {
  return idsOf(spec, path, itemsOf(body));
}

function idsOf(spec: OpenApiDocument, path: string, items: Json[]): Json[] {
  const key = itemKeyOf(spec, path);
  return items.flatMap((item) => {
    const id = idOf(item, key);
    return id === undefined ? [] : [id];
  });
}

/** The items of a list's answer: the answer itself when it is an array, else its first array of objects (`items`, `data`, `results`). */
export function itemsOf(body: Json): Json[] {
  if (Array.isArray(body)) return body;
  if (!isObject(body)) return [];
  const lists = Object.values(body).filter((value): value is Json[] => Array.isArray(value) && value.some(isObject));
  return lists[0] ?? [];
}

/** An item's id: under the name of the item path's parameter (`/pets/{petId}`), else `id`. */
function idOf(item: Json, key: string | undefined): Json | undefined {
  if (!isObject(item)) return undefined;
  const id = (key !== undefined ? item[key] : undefined) ?? item['id'];
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The name of the parameter that names one item of the collection at `path` (`/pets/{petId}` → `petId`), if the spec has such a path. */
function itemKeyOf(spec: OpenApiDocument, path: string): string | undefined {
  const prefix = `${path.replace(/\/$/, '')}/{`;
  const item = Object.keys(spec.paths).find((candidate) => candidate.startsWith(prefix) && /^\/\{[^}]+\}$/.test(candidate.slice(prefix.length - 2)));
  return item === undefined ? undefined : item.slice(prefix.length, -1);
}

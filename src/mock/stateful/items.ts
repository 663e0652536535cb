/**
 * How the stateful mock makes and changes one item: what a create stores (the request's fields over the
 * item as the spec's example shows it, a new id, `now` for the moments the server stamps), what a PUT,
 * a PATCH or an action (`revoke`) leaves of it.
 */
import { isObject, type Json, type JsonObject, type OpenApiDocument } from '../../contract/spec.js';
import type { ValueMaker } from './make-values.js';
import type { Resource } from './resources.js';
import { isDateTime, isReadOnly, objectProperties, requiredProperties } from './schema-shapes.js';

/** Moments a server sets when it makes or changes an item, by name, where the schema does not mark them `readOnly`. */
const MADE_AT = /^(created|inserted|added)(_?at|_?on|_?date|_?time)?$/i;
const CHANGED_AT = /^(updated|modified|changed)(_?at|_?on|_?date|_?time)?$/i;

export interface ItemContext {
  spec: OpenApiDocument;
  maker: ValueMaker;
}

/** The item a create stores, given the request's body and the ids already taken in its collection. */
export function createdItem(context: ItemContext, resource: Resource, body: Json | undefined, taken: Iterable<string>): JsonObject {
  const { spec, maker } = context;
  const properties = objectProperties(spec, resource.schema);
  const item: JsonObject = structuredClone(resource.template ?? resource.seeds[0] ?? {});
  for (const [name, value] of Object.entries(isObject(body) ? body : {})) if (settable(context, properties, name, value)) item[name] = value;
  item[resource.idField] = maker.newId(resource.idSchema, taken);
  const now = maker.now();
  const moments = Object.entries(properties).filter(([name, property]) => isDateTime(spec, property) && typeof item[name] === 'string' && !sentIn(body, name));
  // The example's other moments keep their distance from its making (a key made on the 6th that expires on the 5th of
  // the next month expires 30 days from now), so a new item is not born expired.
  const anchor = moments.find(([name]) => MADE_AT.test(name))?.[0];
  const shift = anchor === undefined ? 0 : Date.parse(now) - Date.parse(String(item[anchor]));
  for (const [name, property] of moments) {
    const stamped = MADE_AT.test(name) || CHANGED_AT.test(name) || isReadOnly(spec, property);
    const moved = new Date(Date.parse(String(item[name])) + shift);
    if (stamped) item[name] = now;
    else if (shift !== 0 && !Number.isNaN(moved.getTime())) item[name] = moved.toISOString();
  }
  // A field the answer must carry that neither the request nor the example gave: a valid value of its schema.
  for (const name of requiredProperties(spec, resource.schema)) {
    if (name in item) continue;
    const value = maker.values.one(properties[name] ?? {});
    if (value !== undefined) item[name] = value;
  }
  return item;
}

/**
 * The item after a change: a PUT replaces every field a request can set (a field left out is gone), a PATCH
 * sets those sent, an action applies its effect and stamps its moments. The id and the server's own fields stay.
 */
export function changedItem(
  context: ItemContext,
  resource: Resource,
  item: JsonObject,
  change: { how: 'replace' | 'merge' | 'action'; effect: JsonObject; stamps: readonly string[]; body: Json | undefined; settable: readonly string[] },
): JsonObject {
  const { spec, maker } = context;
  const properties = objectProperties(spec, resource.schema);
  const next: JsonObject = { ...item };
  const body = isObject(change.body) ? change.body : {};
  if (change.how === 'replace') for (const name of change.settable) if (!(name in body) && name !== resource.idField) delete next[name];
  if (change.how !== 'action')
    for (const [name, value] of Object.entries(body)) if (name !== resource.idField && settable(context, properties, name, value)) next[name] = value;
  Object.assign(next, structuredClone(change.effect));
  const now = maker.now();
  for (const name of change.stamps) next[name] = now;
  for (const [name, property] of Object.entries(properties)) if (isDateTime(spec, property) && CHANGED_AT.test(name)) next[name] = now;
  return next;
}

/** Whether a request's field lands on the item: the item has it, the server does not set it, and the value is one the item may hold. */
function settable(context: ItemContext, properties: Record<string, Json>, name: string, value: Json): boolean {
  const property = properties[name];
  return property !== undefined && !isReadOnly(context.spec, property) && context.maker.values.isValid(property, value);
}

function sentIn(body: Json | undefined, name: string): boolean {
  return isObject(body) && name in body;
}

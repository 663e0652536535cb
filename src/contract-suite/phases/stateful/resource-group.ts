import type { OperationFacts } from '../../operation-facts.js';
import type { PhaseContext } from '../phase.js';
import { writeRole } from '../write-order.js';

/** A collection with a create, and the operations on one of its items. */
export interface ResourceGroup {
  create: OperationFacts;
  /** The list of the collection, if it has one: where a created item is read when there is no GET on the item. */
  list?: OperationFacts;
  read?: OperationFacts;
  /** What changes or deletes the item (`PATCH /pets/{id}`, `POST /keys/{id}/revoke`, `DELETE /pets/{id}`). */
  items: OperationFacts[];
  /** Creates of a sub-resource of the item (`POST /pets/{id}/notes`): sent on the created item, never compared with it. */
  subCreates: OperationFacts[];
  /** The path parameter that names an item. */
  parameter: string;
}

/** Every collection that has a create and operations on its items, read from the spec's paths. */
export function resourceGroups(context: PhaseContext): ResourceGroup[] {
  const groups: ResourceGroup[] = [];
  const { spec } = context.run;
  for (const create of context.facts) {
    const { operation } = create;
    if (writeRole(spec, operation) !== 'creates' || !create.success || !create.body) continue;
    const prefix = `${operation.path.replace(/\/$/, '')}/{`;
    const items = context.facts.filter((facts) => facts.operation.path.startsWith(prefix));
    const first = items[0];
    if (!first) continue;
    const parameter = /^\{([^}]+)\}/.exec(first.operation.path.slice(prefix.length - 1))?.[1];
    if (!parameter) continue;
    const sameItem = items.filter((facts) => facts.operation.path.startsWith(`${prefix}${parameter}}`));
    const read = sameItem.find((facts) => facts.operation.method === 'GET' && facts.operation.path === `${prefix}${parameter}}`);
    const list = context.facts.find((facts) => facts.operation.method === 'GET' && facts.operation.path === operation.path);
    const subCreates = sameItem.filter((facts) => facts !== read && writeRole(spec, facts.operation) === 'creates');
    groups.push({
      create,
      ...(list && { list }),
      ...(read && { read }),
      items: sameItem.filter((facts) => facts !== read && !subCreates.includes(facts)),
      subCreates,
      parameter,
    });
  }
  return groups;
}

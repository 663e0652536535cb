/**
 * The stateful mock's memory: one world per caller (a principal: a signed-in user, or one credential), each
 * a set of collections of items in the order they were made, kept in memory until the process ends or
 * `reset()`. A world starts with the spec's example items (`Resource.seeds`), so a new caller sees what the
 * examples show.
 */
import type { JsonObject } from '../../contract/spec.js';
import type { Resource } from './resources.js';

export class World {
  readonly #collections = new Map<string, Map<string, JsonObject>>();
  /** What "who am I" answers for this world's user, once a sign-in made it. */
  identity?: JsonObject;

  /** The items of a collection at a concrete path (`/pets/7/notes`), by id as text; started from the resource's seeds. */
  collection(resource: Resource, concretePath: string): Map<string, JsonObject> {
    let items = this.#collections.get(concretePath);
    if (!items) {
      items = new Map(resource.seeds.map((seed) => [String(seed[resource.idField]), structuredClone(seed)]));
      this.#collections.set(concretePath, items);
    }
    return items;
  }
}

export class Worlds {
  readonly #worlds = new Map<string, World>();

  of(principal: string): World {
    let world = this.#worlds.get(principal);
    if (!world) {
      world = new World();
      this.#worlds.set(principal, world);
    }
    return world;
  }

  reset(): void {
    this.#worlds.clear();
  }
}

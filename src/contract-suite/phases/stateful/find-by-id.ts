import { isObject, type Json, type JsonObject } from '../../../contract/spec.js';

/** The object anywhere in an answer that carries `id` as one of its values. */
export function findById(body: Json | undefined, id: Json, depth = 0): JsonObject | undefined {
  if (depth > 6) return undefined;
  if (Array.isArray(body)) {
    for (const entry of body) {
      const found = findById(entry, id, depth + 1);
      if (found) return found;
    }
  } else if (isObject(body)) {
    // An integer id names an object only under a key that names one (`id`, `petId`): a count of 6 is not pet 6.
    if (Object.entries(body).some(([key, value]) => value === id && (typeof id === 'string' || /^id$|Id$|_id$/.test(key)))) return body;
    for (const value of Object.values(body)) {
      const found = findById(value, id, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

import { isObject, type Json, type JsonObject } from '../../contract/spec.js';

/**
 * Replaces, in place, every local `$ref` that points outside `#/components/` (into `paths`: a parameter or a schema
 * of another operation, `#/paths/~1pet/put/parameters/2`) by a copy of what it points to. A valid document may use
 * such refs; the readers after this one (Ajv above all, which knows the components only) resolve refs into
 * `components`. Refs into `components` stay refs: their names say what a value is (`ItemId`). A ref that leads back
 * into itself is left as it is.
 */
export function inlineRefsOutsideComponents(document: JsonObject): void {
  const walk = (node: Json, seen: readonly string[]): Json => {
    if (Array.isArray(node)) return node.map((entry) => walk(entry, seen));
    if (!isObject(node)) return node;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/') && !ref.startsWith('#/components/') && !seen.includes(ref)) {
      const target = pointer(document, ref);
      if (target !== undefined) {
        const { $ref: _ref, ...siblings } = node;
        const copy = walk(structuredClone(target), [...seen, ref]);
        return isObject(copy) ? { ...copy, ...siblings } : copy;
      }
    }
    for (const [key, value] of Object.entries(node)) node[key] = walk(value, seen);
    return node;
  };
  walk(document, []);
}

function pointer(document: JsonObject, ref: string): Json | undefined {
  let node: Json | undefined = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
  }
  return node;
}

// The contract as the benchmark needs it: the spec's path and its schemas with `$ref`s inlined,
// for servers (Fastify) that take a self-contained JSON Schema.
import { readContractPaths } from '../../../src/contract/project.js';
import { isObject, loadSpec, type Json, type OpenApiDocument } from '../../../src/contract/spec.js';

export const specPath = readContractPaths().spec;

/** One of `components.schemas`, with every local `$ref` replaced by the schema it names. */
export function inlineSchema(name: string, spec: OpenApiDocument = loadSpec(specPath)): Json {
  const schemas = spec.components['schemas'];
  if (!isObject(schemas) || schemas[name] === undefined) throw new Error(`${specPath} has no components.schemas.${name}`);
  return inline(schemas[name], schemas, []);
}

function inline(node: Json, schemas: { [name: string]: Json }, trail: string[]): Json {
  if (Array.isArray(node)) return node.map((child) => inline(child, schemas, trail));
  if (!isObject(node)) return node;
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    const target = schemas[name];
    if (target === undefined || trail.includes(name)) throw new Error(`cannot inline ${ref}`);
    return inline(target, schemas, [...trail, name]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, schemas, trail)]));
}

/**
 * Items as the public spec's `Item` schema has them, for tests that need a whole item (a page a fake server sends,
 * a page a fake store holds) or a response example as the spec writes it: built from the schema's required
 * properties and the items of the spec's response examples, so a field renamed, added or dropped in the spec
 * changes the fixtures with it. Where it cannot build one, it fails with "update test/helpers/item-fixture.ts".
 */
import { parse } from 'yaml';
import { deref, isObject, type Json, type JsonObject, loadSpec } from '../../src/contract/spec.js';
import type { Item } from '../../src/contract/types.js';

const spec = loadSpec();
const UPDATE = 'update test/helpers/item-fixture.ts';

/** A required property of the spec's `Item`, its schema ($ref followed) and its value in the first example item. */
export interface ItemField {
  name: string;
  schema: JsonObject;
  example: Json;
}

/** Every item of the spec's examples (`components.examples` whose value has `items`), in the order written. */
export const EXAMPLE_ITEMS: readonly JsonObject[] = Object.values(spec.components['examples'] ?? {}).flatMap((example) => {
  const items = isObject(example) && isObject(example['value']) ? example['value']['items'] : undefined;
  return Array.isArray(items) ? items.filter(isObject) : [];
});

/** The required properties of the spec's `Item`, in the order of its `required`. */
export const ITEM_FIELDS: readonly ItemField[] = (() => {
  const schema = deref(spec, { $ref: '#/components/schemas/Item' });
  const required = schema['required'];
  const properties = schema['properties'];
  if (!Array.isArray(required) || !isObject(properties)) throw new Error(`${UPDATE}: the spec's Item has no required properties`);
  const [first] = EXAMPLE_ITEMS;
  if (!first) throw new Error(`${UPDATE}: the spec has no response example with items`);
  return required.map((name) => {
    const example = first[String(name)];
    if (example === undefined) throw new Error(`${UPDATE}: the spec's first example item has no ${String(name)}, which Item requires`);
    return { name: String(name), schema: deref(spec, properties[String(name)]), example };
  });
})();

/**
 * The item's free text: the required string the spec bounds by length alone (no pattern, format or enum), today
 * its title. Tests that need the longest item, or a field renamed as code that missed a spec change would, take it.
 */
export const ITEM_TEXT_FIELD: ItemField = (() => {
  const text = ITEM_FIELDS.find(
    ({ schema }) => schema['type'] === 'string' && typeof schema['maxLength'] === 'number' && !('pattern' in schema || 'format' in schema || 'enum' in schema),
  );
  if (!text) throw new Error(`${UPDATE}: the spec's Item has no free-text field (a string with maxLength and no pattern or format)`);
  return text;
})();

/** A name the spec's Item does not have, for its free-text field renamed (as code that missed a spec change sends it, or a spec edit makes it). */
export const RENAMED_TEXT_FIELD = `${ITEM_TEXT_FIELD.name}Renamed`;

/**
 * A spec's text with Item's free-text field renamed to RENAMED_TEXT_FIELD in Item's `properties` (in place) and
 * `required`, its prose and examples left as they are: the first step of a developer's rename. Written as JSON,
 * which is YAML.
 */
export function renameItemText(specText: string): string {
  const document = parse(specText) as unknown;
  const schemas = isObject(document) && isObject(document['components']) ? document['components']['schemas'] : undefined;
  const item = isObject(schemas) ? schemas['Item'] : undefined;
  const field = ITEM_TEXT_FIELD.name;
  if (!isObject(item) || !isObject(item['properties']) || !(field in item['properties']) || !Array.isArray(item['required']))
    throw new Error(`${UPDATE}: the spec's Item has no property ${field} in its properties and required to rename`);
  item['properties'] = Object.fromEntries(Object.entries(item['properties']).map(([name, schema]) => [name === field ? RENAMED_TEXT_FIELD : name, schema]));
  item['required'] = item['required'].map((name) => (name === field ? RENAMED_TEXT_FIELD : name));
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** An item with each required field of `Item`, made by `value` from the field (its schema and example). */
export function itemFrom(value: (field: ItemField) => Json): Item {
  return Object.fromEntries(ITEM_FIELDS.map((field) => [field.name, value(field)])) as unknown as Item;
}

/**
 * The n-th item (from 1) for a page a fake sends: the spec's example items in turn, each with its required fields,
 * and an id of its own (`itm_` and n, 16 digits), so items differ whatever the examples hold.
 */
export function exampleItem(n: number): Item {
  const example = EXAMPLE_ITEMS[(n - 1) % EXAMPLE_ITEMS.length] as JsonObject;
  const item = itemFrom(({ name }) => {
    if (example[name] === undefined) throw new Error(`${UPDATE}: an example item of the spec has no ${name}, which Item requires`);
    return example[name];
  });
  return { ...item, id: `itm_${String(n).padStart(16, '0')}` };
}

/** The value of a named example of an operation's response (such as `firstPage` of POST / 200), as the spec writes it. */
export function responseExample(path: string, method: string, status: string, name: string): Json {
  const where = `${method.toUpperCase()} ${path} ${status}`;
  const operation = spec.paths[path];
  const responses = isObject(operation) ? deref(spec, operation[method.toLowerCase()])['responses'] : undefined;
  if (!isObject(responses) || responses[status] === undefined) throw new Error(`${UPDATE}: the spec has no ${where}`);
  const content = deref(spec, responses[status])['content'];
  const examples = isObject(content) && isObject(content['application/json']) ? content['application/json']['examples'] : undefined;
  const example = isObject(examples) ? examples[name] : undefined;
  if (example === undefined) throw new Error(`update the test that names it: ${where} has no example ${name} in the spec`);
  const value = deref(spec, example)['value'];
  if (value === undefined) throw new Error(`${UPDATE}: the example ${name} of ${where} has no value`);
  return value;
}

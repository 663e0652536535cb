/**
 * A Kubernetes object checked against its schema offline, as `kubectl apply` with strict field validation would: the
 * schema's own rules (kubernetes-models' compiled validators of the OpenAPI schemas), and no field the schema does not
 * name. The schemas allow unknown fields (the API server drops them, with a warning at most), so a misspelt field
 * would pass validation and protect nothing.
 *
 * How unknown fields are found: the compiled validator reads every property its schema names (`data.exec`,
 * `data.httpGet`, ...) and enumerates the keys of free-form maps (labels, `resources.limits`). Each object is handed
 * over behind a Proxy that records those reads; a key that was never read, in an object that was never enumerated,
 * is one the schema does not know.
 */

interface Reads {
  value: object;
  read: Set<string>;
  enumerated: boolean;
}

interface CompiledError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}
type CompiledValidate = ((data: unknown) => boolean) & { errors?: CompiledError[] | null };

/** The compiled validators carry no messages (ajv's `messages: false`): one from the keyword and its parameters. */
function describe(error: CompiledError): string {
  if (error.keyword === 'type') return `must be ${String(error.params['type'])}`;
  if (error.keyword === 'required') return `must have ${String(error.params['missingProperty'])}`;
  return `fails ${error.keyword} ${JSON.stringify(error.params)}`;
}

/** Each violation as `<pointer> <what is wrong>`, sorted; empty when `object` is valid and has no unknown field. */
export function schemaViolations(validate: (data: unknown) => boolean, object: unknown): string[] {
  const watched: Array<Reads & { pointer: string }> = [];
  const valid = validate(watch(object, '', watched));
  const errors = valid ? [] : ((validate as CompiledValidate).errors ?? []).map((error) => `${error.instancePath} ${describe(error)}`);
  const unknown = watched.flatMap(({ value, read, enumerated, pointer }) =>
    Array.isArray(value) || enumerated
      ? []
      : Object.keys(value)
          .filter((key) => !read.has(key))
          .map((key) => `${pointer}/${key} is not a field of this object`),
  );
  return [...errors, ...unknown].sort();
}

function watch(value: unknown, pointer: string, watched: Array<Reads & { pointer: string }>): unknown {
  if (value === null || typeof value !== 'object') return value;
  const reads: Reads & { pointer: string } = { value, read: new Set(), enumerated: false, pointer };
  watched.push(reads);
  const copy = Array.isArray(value)
    ? value.map((item, index) => watch(item, `${pointer}/${index}`, watched))
    : Object.fromEntries(Object.entries(value).map(([key, item]) => [key, watch(item, `${pointer}/${key}`, watched)]));
  return new Proxy(copy, {
    get(target, key, receiver) {
      if (typeof key === 'string') reads.read.add(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === 'string') reads.read.add(key);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      reads.enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
}

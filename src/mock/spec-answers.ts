/**
 * What the mock reads of a spec to answer in its words: each answer's declared header examples, and the contract's
 * problem type for each status. Shared by the edge (Prism's answers) and the stateful mock (its own), so neither
 * imports the other.
 */
import { deref, HTTP_METHODS, isObject, type OpenApiDocument } from '../contract/spec.js';
import { PROBLEM_TYPES, type ProblemType } from '../http/problems.js';

/** The example of every header each operation's answers declare, by `METHOD path status`. */
export function headerExamples(spec: OpenApiDocument): Map<string, Record<string, string>> {
  const examples = new Map<string, Record<string, string>>();
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const item = deref(spec, rawItem);
    for (const method of HTTP_METHODS) {
      if (!isObject(item[method])) continue;
      const responses = deref(spec, item[method])['responses'];
      for (const [status, rawResponse] of Object.entries(isObject(responses) ? responses : {})) {
        const declared = deref(spec, rawResponse)['headers'];
        const values: Record<string, string> = {};
        for (const [name, rawHeader] of Object.entries(isObject(declared) ? declared : {})) {
          const example = deref(spec, rawHeader)['example'];
          if (example !== undefined && example !== null) values[name.toLowerCase()] = String(example);
        }
        examples.set(`${method.toUpperCase()} ${path} ${status}`, values);
      }
    }
  }
  return examples;
}

/** The contract's problem type for each status that has exactly one (`422` is `validation-failed`, ...). */
export function problemTypesByStatus(spec: OpenApiDocument): Map<number, ProblemType> {
  const schemas = isObject(spec.components['schemas']) ? spec.components['schemas'] : {};
  const problemType = schemas['ProblemType'];
  const listed = isObject(problemType) && Array.isArray(problemType['enum']) ? problemType['enum'] : [];
  const byStatus = new Map<number, ProblemType[]>();
  for (const type of listed) {
    if (typeof type !== 'string' || !(type in PROBLEM_TYPES)) continue;
    const { status } = PROBLEM_TYPES[type as ProblemType];
    byStatus.set(status, [...(byStatus.get(status) ?? []), type as ProblemType]);
  }
  return new Map([...byStatus].filter(([, types]) => types.length === 1).map(([status, types]) => [status, types[0] as ProblemType]));
}

import { isObject, type Json } from '../../contract/spec.js';
import { type CaseDraft, type Derived, type Location, type RequestInput, withField } from '../case.js';
import type { FamilyContext } from './family.js';

/** One field an example sets. */
type Setting = { location: Location; name: string; value: Json };

/**
 * One positive case per named request example: each body example, and each
 * query or header parameter's example alone and all of them together. A
 * continuation token in an example (the spec's sample cursor) is replaced by a
 * live one, since a cursor only works for the caller and request that made it.
 * Path parameters' examples are left to the minimal request, which prefers an id
 * the API has answered with.
 */
export function requestExamples({ facts }: FamilyContext): Derived {
  const success = facts.success;
  if (success === undefined) return { cases: [] };
  const cases: CaseDraft[] = [];
  const add = (name: string, location: Location, settings: Setting[], base: RequestInput) => {
    let input = base;
    const live = [...facts.live];
    const shown: string[] = [];
    for (const setting of settings) {
      input = withField(input, setting.location, setting.name, setting.value);
      const continuation = facts.continuations.get(setting.name);
      if (continuation?.location === setting.location) {
        live.push(continuation);
        shown.push(`${setting.name}=<live ${setting.name}>`);
      } else shown.push(`${setting.name}=${JSON.stringify(setting.value)}`);
    }
    cases.push({
      key: name,
      polarity: 'positive',
      family: 'example',
      location,
      title: `example "${name}" (${shown.join(' ') || 'no options'})`,
      expectedStatus: success,
      input,
      live,
    });
  };

  if (facts.body) {
    for (const [name, example] of Object.entries(facts.body.examples)) {
      const settings = Object.entries(isObject(example) ? example : {}).map(([field, value]): Setting => ({ location: 'body', name: field, value }));
      add(name, 'body', settings, { ...facts.baseline, body: example });
    }
  }
  const parameters = facts.fields
    .filter((field) => (field.location === 'query' || field.location === 'header') && field.example !== undefined)
    .map((field): Setting => ({ location: field.location, name: field.name, value: field.example as Json }));
  for (const setting of parameters) add(`parameter ${setting.name}`, setting.location, [setting], facts.baseline);
  if (parameters.length > 1) add('all parameter examples', parameters[0]?.location ?? 'query', parameters, facts.baseline);
  return { cases };
}

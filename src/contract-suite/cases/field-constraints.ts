import { isJsonMediaType } from '../../contract/media-types.js';
import { type CaseDraft, type Derived, type Location, withField } from '../case.js';
import { documents, type Field } from '../operation-facts.js';
import { faultsOf } from '../values/faults.js';
import { baseFor, describeLocation, type FamilyContext, fieldKey, liveExcept } from './family.js';

const UNPROCESSABLE = 422;
const NOT_FOUND = 404;
const BAD_REQUEST = 400;

/**
 * One bad value per constraint of every field (`enum`, `type`, bounds, `pattern`,
 * a string `format`, lengths), a missing required field, and an unknown field where the contract
 * closes the body (`additionalProperties` or `unevaluatedProperties` false) or, under
 * the rule `closed-query`, the query string.
 *
 * Under the rule `validation-422` each expects the documented 422 naming the field
 * with its `in` and pointer; a malformed path parameter too (`in: path`), and only
 * when the operation documents 404 and no 422 is it a 404. Without the rule the spec
 * does not say which status refuses invalid input, so any client error will do (the
 * report shows 400 when documented, else the first documented 4xx), as long as the
 * operation documents one.
 */
export function fieldConstraints({ facts, rules }: FamilyContext): Derived {
  const cases: CaseDraft[] = [];
  const notes: string[] = [];
  const { operation } = facts;
  const strict = rules.has('validation-422');
  const clientErrors = Object.keys(operation.responses).filter((status) => status.startsWith('4'));
  const rejects = strict ? documents(operation, UNPROCESSABLE) : clientErrors.length > 0;
  const shown = documents(operation, BAD_REQUEST) ? BAD_REQUEST : Number(clientErrors[0]?.replace('XX', '00'));
  const statusFor = (location: Location): number | undefined => {
    if (!strict) return rejects ? shown : undefined;
    return rejects ? UNPROCESSABLE : location === 'path' && documents(operation, NOT_FOUND) ? NOT_FOUND : undefined;
  };
  const add = (field: Pick<Field, 'location' | 'name'>, draft: Omit<CaseDraft, 'polarity' | 'location' | 'expectedStatus' | 'live' | 'violation'>) => {
    const status = statusFor(field.location);
    if (status === undefined) return;
    cases.push({
      ...draft,
      polarity: 'negative',
      location: field.location,
      expectedStatus: status,
      live: liveExcept(facts, field.location, field.name),
      ...(!strict && { anyClientError: true }),
      ...(strict && status === UNPROCESSABLE && { violation: { in: field.location, pointer: `/${field.name}` } }),
    });
  };

  for (const field of facts.fields) {
    const where = field.location === 'path' ? `malformed ${field.name} in the path` : undefined;
    const textual = field.location !== 'body' || (facts.body !== undefined && !isJsonMediaType(facts.body.mediaType));
    const input = baseFor(facts, field);
    const of = field.branch ? ` (${field.branch.label})` : '';
    for (const fault of faultsOf(field.resolved, field.location, textual)) {
      add(field, {
        key: fieldKey(field),
        family: fault.family,
        title: where ? `${where}: ${fault.title(field.name)}` : `${fault.title(field.name)} ${describeLocation(field.location)}${of}`,
        input: withField(input, field.location, field.name, fault.value),
      });
    }
    // A path without its parameter is another path: that is the routing cases' business.
    if (field.required && field.location !== 'path') {
      add(field, {
        key: fieldKey(field),
        family: 'missing-required',
        title: `required ${field.name} left out of the ${field.location}${of}`,
        input: withField(input, field.location, field.name, undefined),
      });
    }
  }

  const closed: Array<'body' | 'query'> = [...(facts.body?.closed ? (['body'] as const) : []), ...(rules.has('closed-query') ? (['query'] as const) : [])];
  for (const location of closed) {
    // A typo of a field of the same place, else of the body's, else of any: a header's name (`XC-lient-Version`) is a poor probe of a query.
    const namesIn = (where: string) => facts.fields.filter((field) => field.location === where).map((field) => field.name);
    const names = [namesIn(location), namesIn('body'), facts.fields.map((field) => field.name)].find((list) => list.length > 0) ?? [];
    const unknown = typoOf(names);
    const value = facts.list?.sortValues[0] ?? 'x';
    add(
      { location, name: unknown },
      {
        key: `${location}/${unknown}`,
        family: 'unknown-field',
        title: `unknown ${location === 'body' ? 'field' : 'query parameter'} "${unknown}"`,
        input: withField(facts.baseline, location, unknown, value),
      },
    );
  }
  if (!rejects && facts.fields.length > 0) notes.push(`no case for invalid values: the operation documents no ${strict ? '422' : '4xx answer'}`);
  return { cases, notes };
}

/** A plausible typo of the first field (`sort` becomes `srot`) that is not itself a field. */
function typoOf(names: string[]): string {
  const first = names[0] ?? 'option';
  const typo = first.length > 2 ? `${first.charAt(0)}${first.charAt(2)}${first.charAt(1)}${first.slice(3)}` : `${first}x`;
  return names.includes(typo) ? `${typo}_unknown` : typo;
}

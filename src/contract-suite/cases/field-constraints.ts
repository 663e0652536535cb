import { withField, type CaseDraft, type Derived, type Location } from '../case.js';
import { documents, type Field } from '../operation-facts.js';
import { faultsOf } from '../values/faults.js';
import { describeLocation, liveExcept, type FamilyContext } from './family.js';

const UNPROCESSABLE = 422;
const NOT_FOUND = 404;

/**
 * The spec says of every operation that unknown query parameters are rejected
 * with 422 ("Unknown query parameters are rejected the same way"); OpenAPI has
 * no keyword that closes a query string, so the suite takes it from there.
 */
const QUERY_IS_CLOSED = true;

/**
 * One bad value per constraint of every field (`enum`, `type`, bounds, `pattern`,
 * lengths), a missing required field, and an unknown field where the contract
 * closes the body or query. Each expects the documented 422 naming the field
 * with its `in` and pointer. A malformed path parameter expects the 422 too
 * (`in: path`); only when the operation documents 404 and no 422 is it a 404.
 */
export function fieldConstraints({ facts }: FamilyContext): Derived {
  const cases: CaseDraft[] = [];
  const notes: string[] = [];
  const { operation } = facts;
  const rejects = documents(operation, UNPROCESSABLE);
  const statusFor = (location: Location): number | undefined =>
    rejects ? UNPROCESSABLE : location === 'path' && documents(operation, NOT_FOUND) ? NOT_FOUND : undefined;
  const add = (field: Pick<Field, 'location' | 'name'>, draft: Omit<CaseDraft, 'polarity' | 'location' | 'expectedStatus' | 'live' | 'violation'>) => {
    const status = statusFor(field.location);
    if (status === undefined) return;
    cases.push({
      ...draft,
      polarity: 'negative',
      location: field.location,
      expectedStatus: status,
      live: liveExcept(facts, field.location, field.name),
      ...(status === UNPROCESSABLE && { violation: { in: field.location, pointer: `/${field.name}` } }),
    });
  };

  for (const field of facts.fields) {
    const where = field.location === 'path' ? `malformed ${field.name} in the path` : undefined;
    for (const fault of faultsOf(field.resolved, field.location)) {
      add(field, {
        key: `${field.location}/${field.name}`,
        family: fault.family,
        title: where ? `${where}: ${fault.title(field.name)}` : `${fault.title(field.name)} ${describeLocation(field.location)}`,
        input: withField(facts.baseline, field.location, field.name, fault.value),
      });
    }
    // A path without its parameter is another path: that is the routing cases' business.
    if (field.required && field.location !== 'path') {
      add(field, {
        key: `${field.location}/${field.name}`,
        family: 'missing-required',
        title: `required ${field.name} left out of the ${field.location}`,
        input: withField(facts.baseline, field.location, field.name, undefined),
      });
    }
  }

  const closed: Array<'body' | 'query'> = [...(facts.body?.closed ? (['body'] as const) : []), ...(QUERY_IS_CLOSED ? (['query'] as const) : [])];
  for (const location of closed) {
    const names = facts.fields.filter((field) => field.location === location).map((field) => field.name);
    const unknown = typoOf(names.length > 0 ? names : facts.fields.map((field) => field.name));
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
  if (!rejects && facts.fields.length > 0) notes.push('no case for invalid values: the operation documents no 422');
  return { cases, notes };
}

/** A plausible typo of the first field (`sort` becomes `srot`) that is not itself a field. */
function typoOf(names: string[]): string {
  const first = names[0] ?? 'option';
  const typo = first.length > 2 ? `${first.charAt(0)}${first.charAt(2)}${first.charAt(1)}${first.slice(3)}` : `${first}x`;
  return names.includes(typo) ? `${typo}_unknown` : typo;
}

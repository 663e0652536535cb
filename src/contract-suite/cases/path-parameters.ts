import { type CaseDraft, type Derived, withField } from '../case.js';
import { documents } from '../operation-facts.js';
import { type FamilyContext, liveExcept } from './family.js';

const NOT_FOUND = 404;

/**
 * For each path parameter, a value its schema accepts but that cannot exist
 * (random where the pattern or format leaves room), expecting the documented 404.
 * Malformed values are one-bad-value-per-constraint cases (`field-constraints.ts`).
 */
export function pathParameters({ facts, values }: FamilyContext): Derived {
  const cases: CaseDraft[] = [];
  const notes: string[] = [];
  for (const field of facts.fields.filter((candidate) => candidate.location === 'path')) {
    if (!documents(facts.operation, NOT_FOUND)) {
      notes.push(`no unknown-${field.name} case: the operation documents no 404`);
      continue;
    }
    const unknown = values.unguessable(field.schema);
    if (unknown === undefined) {
      notes.push(`no unknown-${field.name} case: its schema leaves no room for a value that cannot exist (no pattern, format or integer range to draw from)`);
      continue;
    }
    cases.push({
      key: `path/${field.name}`,
      polarity: 'negative',
      family: 'unknown-id',
      location: 'path',
      title: `unknown ${field.name}: well-formed, but nothing has it`,
      expectedStatus: NOT_FOUND,
      input: withField(facts.baseline, 'path', field.name, unknown),
      live: liveExcept(facts, 'path', field.name),
    });
  }
  return { cases, notes };
}

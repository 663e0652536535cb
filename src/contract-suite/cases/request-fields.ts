import type { Json } from '../../contract/spec.js';
import { type CaseDraft, type Derived, withField } from '../case.js';
import { resolveSchema } from '../values/schema-refs.js';
import { baseFor, type FamilyContext, fieldKey, liveExcept, smallPage } from './family.js';

/**
 * A positive case for every query, header and body field: the request without
 * it (when optional) and with each of a few valid values (its enum, its bounds
 * and default, its example, else a generated value). Each must be accepted, and
 * the runner compares the answers: a field the server accepts but provably
 * ignores is a finding (see `runners/field-values.ts`). A continuation field
 * (a cursor) is tried with the token the answer without it offers.
 * A path parameter cannot be left out or set to any valid value (most would name
 * nothing), so its one value is the baseline's: taken from an earlier answer when
 * one carries it (see `operation-facts.ts`).
 */
export function requestFields({ spec, facts, values }: FamilyContext): Derived {
  if (facts.success === undefined) return { cases: [] };
  const cases: CaseDraft[] = [];
  const notes: string[] = [];
  for (const field of facts.fields) {
    // No valid body to vary a field of (its note says why).
    if (field.location === 'body' && facts.baseline.body === undefined) continue;
    const input = baseFor(facts, field);
    const base = {
      key: fieldKey(field),
      polarity: 'positive' as const,
      family: 'field-values' as const,
      location: field.location,
      expectedStatus: facts.success,
      live: liveExcept(facts, field.location, field.name),
    };
    if (field.location === 'path') {
      const live = facts.live.some((value) => value.location === 'path' && value.name === field.name);
      cases.push({
        ...base,
        title: `${field.name}: ${live ? 'the one an earlier answer gave' : 'its example'}`,
        input: facts.baseline,
        live: facts.live,
        variants: { location: field.location, name: field.name, values: [undefined] },
      });
      continue;
    }
    const continuation = facts.continuations.get(field.name);
    if (continuation && continuation.location === field.location) {
      cases.push({
        ...base,
        title: `${field.name}: none, then the one the first answer offers`,
        input: smallPage(facts, facts.baseline),
        variants: { location: field.location, name: field.name, values: [undefined], continuation },
      });
      continue;
    }
    const valid = values.variants(field.schema, field.example);
    if (valid.length === 0) {
      notes.push(`no positive case for ${field.location} field ${field.name}: no example, and no valid value could be generated from its schema`);
      continue;
    }
    // A body field's value is tried only where the whole body stays valid (a `required` written in an `allOf`, a `oneOf`).
    const body = facts.body;
    const fits = (value: Json | undefined) =>
      field.location !== 'body' || body === undefined || values.isValid(body.schema, withField(input, 'body', field.name, value).body ?? null);
    const tried = (field.required ? valid : [undefined, ...valid]).filter(fits);
    if (tried.length === 0) {
      notes.push(`no positive case for body field ${field.name}: none of its values keeps the body valid`);
      continue;
    }
    const fallback = resolveSchema(spec, field.schema)['default'];
    cases.push({
      ...base,
      title: `${field.branch ? `${field.branch.label}: ` : ''}${field.name}: ${tried.map((value) => (value === undefined ? 'none' : JSON.stringify(value))).join(', ')}`,
      input,
      variants: {
        location: field.location,
        name: field.name,
        values: tried,
        ...(field.noEffect !== undefined && { noEffect: field.noEffect }),
        ...(fallback !== undefined && { default: fallback }),
      },
    });
  }
  return { cases, notes };
}

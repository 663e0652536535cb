import type { OpenApiDocument } from '../../contract/spec.js';
import { type Derived, type LiveValue, type Location, type RequestInput, withField } from '../case.js';
import type { Credentials } from '../credentials.js';
import type { Field } from '../field.js';
import type { OperationFacts } from '../operation-facts.js';
import type { Rules } from '../rules.js';
import type { SchemaValues } from '../values/schema-values.js';

/** What a family of cases reads to derive its cases for one operation. */
export interface FamilyContext {
  spec: OpenApiDocument;
  values: SchemaValues;
  facts: OperationFacts;
  /** Every operation's facts: routing cases need the other methods of a path. */
  all: OperationFacts[];
  /** The conventions the spec turns on (`rules.ts`). */
  rules: Rules;
  credentials: Credentials;
}

/** Derives one family of cases (authentication, path parameters, ...) for one operation. */
export type CaseFamily = (context: FamilyContext) => Derived;

/** The baseline's live values, except the one a case sets itself. */
export function liveExcept(facts: OperationFacts, location: Location, name: string): LiveValue[] {
  return facts.live.filter((value) => !(value.location === location && value.name === name));
}

/**
 * The input with the smallest page a list allows, so that even a short list
 * continues on a next page and a live cursor can be had.
 */
export function smallPage(facts: OperationFacts, input: RequestInput): RequestInput {
  const list = facts.list;
  if (!list || !facts.fields.some((field) => field.location === list.location && field.name === 'limit')) return input;
  return withField(input, list.location, 'limit', list.minLimit);
}

/** The word for a field in titles: a body field, a query or header parameter, a path parameter. */
export function describeLocation(location: Location): string {
  return location === 'body' ? 'in the body' : location === 'cookie' ? 'in a cookie' : `in the ${location}`;
}

/** The request a field is varied in: the baseline, or for a field of one alternative of a `oneOf` body, the baseline with that alternative's body. */
export function baseFor(facts: OperationFacts, field: Pick<Field, 'branch'>): RequestInput {
  return field.branch === undefined ? facts.baseline : { ...facts.baseline, body: field.branch.body };
}

/** What tells a field's cases apart in their ids: `body/name`, or `body/<alternative>/name` for a field of one alternative of the body. */
export function fieldKey(field: Pick<Field, 'location' | 'name' | 'branch'>): string {
  return field.branch === undefined ? `${field.location}/${field.name}` : `${field.location}/${field.branch.label}/${field.name}`;
}

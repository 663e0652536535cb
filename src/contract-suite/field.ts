import type { Json, JsonObject } from '../contract/spec.js';
import type { Location } from './case.js';

/**
 * One thing a request can carry: a path, query, header or cookie parameter, or a top-level property of the body.
 * Its own module so that what reads fields (`list-shape.ts`) need not import `operation-facts.ts`, which imports it.
 */
export interface Field {
  location: Location;
  name: string;
  required: boolean;
  /** The schema as written: a `$ref` stays one, so Ajv and the harvest see the component. */
  schema: Json;
  /** The schema with its top-level `$ref` followed. */
  resolved: JsonObject;
  /** The component the schema refers to (`ItemId`), if any. */
  component?: string;
  /** The parameter's example (body properties take theirs from the schema). */
  example?: Json;
  /** Why the field rightly leaves the answer as it is (`x-no-effect`), if the spec says so. */
  noEffect?: string;
  /** A property of one alternative of a `oneOf`/`anyOf` body: that alternative, and its smallest valid body, in which the field is varied (`body-fields.ts`). */
  branch?: { label: string; body: Json };
}

import type { OperationContract } from '../contract/operations.js';
import type { Json } from '../contract/spec.js';

/** What a case is about. The known differences and the report refer to cases by family. */
export type Family =
  // positive
  | 'minimal-request'
  | 'example'
  | 'field-values'
  | 'pagination'
  | 'content-type-without-body'
  // authentication
  | 'no-authorization'
  | 'other-scheme'
  | 'empty-bearer'
  | 'malformed-key'
  | 'unknown-key'
  | 'refused-credential'
  // one bad value per constraint
  | 'invalid-enum'
  | 'wrong-type'
  | 'over-maximum'
  | 'under-minimum'
  | 'pattern-mismatch'
  | 'format-mismatch'
  | 'too-long'
  | 'too-short'
  | 'missing-required'
  | 'unknown-field'
  // path parameters
  | 'unknown-id'
  // the request as a whole
  | 'malformed-json'
  | 'empty-body'
  | 'wrong-content-type'
  | 'body-too-large'
  // routing, decided for the whole API
  | 'unknown-path'
  | 'other-method'
  // the phases after the cases (src/contract-suite/phases/)
  | 'property-valid'
  | 'property-invalid'
  | 'refused-credential'
  | 'other-user'
  | 'stateful'
  | 'write-effect';

export type Polarity = 'positive' | 'negative';

/** Where a case's fields go, or where its fault lies. Also the `in` of a 422 violation. */
export type Location = 'body' | 'query' | 'header' | 'path' | 'cookie';

/** The parts of a request a case fills in; the transport adds the key and puts them on the wire. */
export interface RequestInput {
  path: Record<string, Json>;
  query: Record<string, Json>;
  headers: Record<string, Json>;
  /** Cookie parameters (not the credential: the transport adds that). */
  cookie?: Record<string, Json>;
  /** The body as a JSON value, written in the operation's media type (JSON, a form); absent when the operation takes none. */
  body?: Json;
}

/** Replaces parts of the request's default wire form. */
export interface RequestOverrides {
  /** `none` sends no credential at all; a scheme and value replaces that scheme's credential (an unknown or refused one). */
  credentials?: 'none' | { scheme: string; value: string };
  /**
   * Present this alternative of the operation's `security` (the names of its schemes), and no other:
   * each alternative gets its own valid and refused cases. Default: the first the run has credentials for.
   */
  security?: string[];
  /** `null` leaves the `Authorization` header out; a string replaces it. */
  authorization?: string | null;
  /** For an operation under a cookie scheme: `null` leaves the `Cookie` header out; a string replaces it. */
  cookie?: string | null;
  contentType?: string | null;
  /** Raw body text, sent as is. */
  body?: string;
  /** Another method than the operation's (routing cases). */
  method?: string;
  /** A path sent as is instead of the operation's template (routing cases). */
  path?: string;
}

/**
 * A value only the API can supply, filled in when the case runs:
 * - `seen`: a value of this component from an earlier answer (an `ItemId` from a
 *   list), else the first of `fallbacks` (the spec's example, a generated value);
 * - `previous-page`: a continuation token (a cursor) from the answer to the same
 *   request without it, since such a token belongs to its caller and request.
 */
export interface LiveValue {
  location: Location;
  name: string;
  component: string;
  source: 'seen' | 'previous-page';
  fallbacks: Json[];
}

/** The values a `field-values` case tries one after another; `undefined` leaves the field out (a path parameter keeps its baseline value). */
export interface FieldVariants {
  location: Location;
  name: string;
  values: Array<Json | undefined>;
  /** The field is a continuation token: its one value is taken live from the answer without it. */
  continuation?: LiveValue;
  /** The spec's reason why the field rightly leaves the answer as it is (`x-no-effect`): its effect is not judged. */
  noEffect?: string;
  /** The schema's default: the field left out means this value, so the two are one value when effects are compared. */
  default?: Json;
}

/** One check of the suite, derived from the spec. */
export interface SuiteCase {
  /** Stable identifier, e.g. `listOwnItems negative invalid-enum body/sort`. */
  id: string;
  operation: OperationContract;
  polarity: Polarity;
  family: Family;
  location: Location;
  title: string;
  /** The status the contract calls for. */
  expectedStatus: number;
  /**
   * Any client error will do (invalid input where the spec does not say which status refuses it:
   * Schemathesis' negative_data_rejection); `expectedStatus` is then the one the report shows.
   */
  anyClientError?: boolean;
  input: RequestInput;
  overrides: RequestOverrides;
  /** Values to fill in from the API when the case runs. */
  live: LiveValue[];
  /** For a 422: the violation the `errors` list must name. */
  violation?: { in: Location; pointer: string };
  /** A pagination walk instead of one request. */
  walk?: { limit: number };
  /** Several requests varying one field, compared to prove the field has an effect. */
  variants?: FieldVariants;
  /**
   * The answer is decided for the whole API (`info.description`), not documented
   * on the operation: checked against the operation's error shape instead.
   */
  apiWide?: boolean;
  /** For a 405: the methods its `Allow` header must list. */
  allow?: string[];
  /** Derived but not sent, and why (a positive case of an operation that writes). */
  skip?: string;
}

/** A case as a family derives it; `deriveCases` adds the operation and the id. */
export type CaseDraft = Omit<SuiteCase, 'id' | 'operation' | 'overrides' | 'live'> & {
  /** What tells this case from others of its family in its id (e.g. `body/sort`); empty when there is one. */
  key: string;
  overrides?: RequestOverrides;
  live?: LiveValue[];
};

/** What a family derives for one operation: its cases, and notes on what it could not derive and why. */
export interface Derived {
  cases: CaseDraft[];
  notes?: string[];
}

/** The input with one field set (or left out, for `undefined`). */
export function withField(input: RequestInput, location: Location, name: string, value: Json | undefined): RequestInput {
  const next: RequestInput = {
    path: { ...input.path },
    query: { ...input.query },
    headers: { ...input.headers },
    ...(input.cookie !== undefined && { cookie: { ...input.cookie } }),
    ...(input.body !== undefined && { body: input.body }),
  };
  if (location === 'body') {
    const body = typeof input.body === 'object' && input.body !== null && !Array.isArray(input.body) ? { ...input.body } : {};
    if (value === undefined) delete body[name];
    else body[name] = value;
    next.body = body;
    return next;
  }
  if (location === 'cookie') next.cookie = { ...next.cookie };
  const part = location === 'header' ? next.headers : location === 'cookie' ? (next.cookie ?? {}) : next[location];
  if (value === undefined) delete part[name];
  else part[name] = value;
  return next;
}

/** The value of one field in the input. */
export function fieldOf(input: RequestInput, location: Location, name: string): Json | undefined {
  if (location === 'body') return typeof input.body === 'object' && input.body !== null && !Array.isArray(input.body) ? input.body[name] : undefined;
  return (location === 'header' ? input.headers : location === 'cookie' ? (input.cookie ?? {}) : input[location])[name];
}

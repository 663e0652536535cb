import type { AccountProblemType } from '../contract/account-types.js';
import type { Problem, ProblemType as PublicProblemType, Violation } from '../contract/types.js';
import { scrubKeys } from '../keys/api-key.js';
import { clip, type ProblemBounds } from './request-contract.js';

/** Every problem type of the project's contracts: the public API's and the account API's `ProblemType` enums. */
export type ProblemType = PublicProblemType | AccountProblemType;

/**
 * The status and title of each problem type the specs list. Typed by the specs'
 * `ProblemType` enums: a type added to either spec without an entry here, or an
 * entry neither spec has, fails `npm run typecheck`. Which types an operation may
 * answer with is the spec's to say; the response validation holds each app to it.
 */
export const PROBLEM_TYPES = {
  'urn:problem-type:malformed-request': { status: 400, title: 'Malformed request' },
  'urn:problem-type:unauthorized': { status: 401, title: 'Unauthorized' },
  'urn:problem-type:forbidden': { status: 403, title: 'Forbidden' },
  'urn:problem-type:not-found': { status: 404, title: 'Not found' },
  'urn:problem-type:method-not-allowed': { status: 405, title: 'Method not allowed' },
  'urn:problem-type:conflict': { status: 409, title: 'Conflict' },
  'urn:problem-type:header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'urn:problem-type:request-timeout': { status: 408, title: 'Request timeout' },
  'urn:problem-type:content-too-large': { status: 413, title: 'Content too large' },
  'urn:problem-type:unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'urn:problem-type:expectation-failed': { status: 417, title: 'Expectation failed' },
  'urn:problem-type:validation-failed': { status: 422, title: 'Validation failed' },
  'urn:problem-type:rate-limited': { status: 429, title: 'Too many requests' },
  'urn:problem-type:too-many-sign-in-attempts': { status: 429, title: 'Too many sign-in attempts' },
  'urn:problem-type:internal-error': { status: 500, title: 'Internal error' },
  'urn:problem-type:service-unavailable': { status: 503, title: 'Service unavailable' },
} as const satisfies Record<ProblemType, { status: number; title: string }>;

/** The one error envelope, as either contract defines it (they differ only in their `ProblemType` enums). */
export type ProblemBody = Omit<Problem, 'type'> & { type: ProblemType };

export type ProblemStatus = (typeof PROBLEM_TYPES)[ProblemType]['status'];

/**
 * The one error type of the server. Anything that should answer with a problem
 * throws this; the app's single `onError` writes it as `application/problem+json`.
 */
export class ApiError extends Error {
  readonly type: ProblemType;
  readonly status: ProblemStatus;
  readonly title: string;
  readonly errors: Violation[] | undefined;
  readonly headers: Record<string, string>;
  /**
   * Why, in a word the metrics can count by (`rate-limit`, `failed-authentication-budget`, `unknown-key`...):
   * refusals and authentication failures carry one. A label of low cardinality, never a value from the request.
   */
  readonly reason: string | undefined;

  constructor(type: ProblemType, detail: string, options: { errors?: Violation[]; headers?: Record<string, string>; reason?: string } = {}) {
    super(detail);
    this.name = 'ApiError';
    this.type = type;
    this.status = PROBLEM_TYPES[type].status;
    this.title = PROBLEM_TYPES[type].title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.reason = options.reason;
  }
}

/** Where a problem was met: the request's id, and the path asked (the problem's `instance`) when there was one. */
export interface ProblemPlace {
  requestId: string;
  instance?: string | undefined;
}

/**
 * The one problem writer: every problem+json body the project sends (the apps', the listener's answers
 * outside the apps, the mock edge's) is built here, bounded as the spec bounds a problem's fields, so it
 * always validates; a key pasted into the path or a field name is not sent back (it may be logged or
 * cached on the way).
 */
export function problemBody(type: ProblemType, detail: string, place: ProblemPlace, bounds: ProblemBounds, errors?: readonly Violation[]): ProblemBody {
  const { status, title } = PROBLEM_TYPES[type];
  return {
    type,
    title,
    status,
    detail: clip(detail, bounds.detail),
    ...(place.instance !== undefined && { instance: clip(scrubKeys(place.instance), bounds.instance) }),
    requestId: place.requestId,
    ...(errors && {
      errors: errors.slice(0, bounds.errors).map((violation) => ({
        ...violation,
        pointer: clip(scrubKeys(violation.pointer), bounds.pointer),
        detail: clip(violation.detail, bounds.violationDetail),
      })),
    }),
  };
}

/** An `ApiError` as the problem+json text it is sent as. */
export function problemText(error: ApiError, place: ProblemPlace, bounds: ProblemBounds): string {
  return JSON.stringify(problemBody(error.type, error.message, place, bounds, error.errors));
}

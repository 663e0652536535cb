import type { ProblemType, Violation } from '../contract/types.js';

/**
 * The status and title of each problem type the spec lists. Typed by the spec's
 * `ProblemType` enum: a type added to the spec without an entry here, or an entry
 * the spec does not have, fails `npm run typecheck`.
 */
export const PROBLEM_TYPES = {
  'urn:problem-type:malformed-request': { status: 400, title: 'Malformed request' },
  'urn:problem-type:unauthorized': { status: 401, title: 'Unauthorized' },
  'urn:problem-type:not-found': { status: 404, title: 'Not found' },
  'urn:problem-type:method-not-allowed': { status: 405, title: 'Method not allowed' },
  'urn:problem-type:header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'urn:problem-type:request-timeout': { status: 408, title: 'Request timeout' },
  'urn:problem-type:content-too-large': { status: 413, title: 'Content too large' },
  'urn:problem-type:unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'urn:problem-type:validation-failed': { status: 422, title: 'Validation failed' },
  'urn:problem-type:rate-limited': { status: 429, title: 'Too many requests' },
  'urn:problem-type:internal-error': { status: 500, title: 'Internal error' },
  'urn:problem-type:service-unavailable': { status: 503, title: 'Service unavailable' },
} as const satisfies Record<ProblemType, { status: number; title: string }>;

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

  constructor(type: ProblemType, detail: string, options: { errors?: Violation[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = 'ApiError';
    this.type = type;
    this.status = PROBLEM_TYPES[type].status;
    this.title = PROBLEM_TYPES[type].title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

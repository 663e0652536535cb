import type { Family, Location, Polarity } from './case.js';
import type { Finding } from './checks.js';
import type { SentRequest } from './http.js';
import type { Target } from './known-differences.js';
import type { NotProvoked } from './not-provoked.js';

export type Outcome = 'pass' | 'fail' | 'skip';

export interface ExcusedFinding extends Finding {
  /** Id of the known difference that excuses it. */
  difference: string;
}

export interface CaseResult {
  id: string;
  operationId: string;
  method: string;
  path: string;
  /** `coverage` for the result that fails an operation no case could check. */
  polarity: Polarity | 'coverage';
  family: Family | 'coverage';
  location: Location;
  title: string;
  outcome: Outcome;
  expectedStatus: number;
  /** Any client error was right (the spec names no one status for this refusal): two targets may answer different 4xx and both pass. */
  anyClientError?: boolean;
  /** Status of the answer the result is about (the offending one when it failed). */
  status?: number;
  /** What is wrong; empty when the case passed. */
  findings: Finding[];
  /** What differs but is listed in known-differences.ts for this target. */
  excused: ExcusedFinding[];
  /** Why it was skipped, or what a walk or a comparison showed. */
  note?: string;
  /** The request the result is about (the offending one when it failed), with the key redacted. */
  request?: SentRequest;
  curl?: string;
  /** How long the answer the result is about took. */
  elapsedMs?: number;
  /** The start of the offending answer's body, when the case failed. */
  responseExcerpt?: string;
  requests: number;
}

/** How one operation of the spec was covered: every operation has one, even with no case. */
export interface OperationSummary {
  operationId: string;
  method: string;
  path: string;
  cases: number;
  passed: number;
  failed: number;
  skipped: number;
  /** What the derivation could not derive, and why (a skipped case's reason is on its result). */
  notes: string[];
  /** Documented statuses no case provokes, and why. */
  notProvoked: NotProvoked[];
}

export interface SuiteReport {
  baseUrl: string;
  target: Target;
  /** The document checked: its title and version, its OpenAPI version, and the conventions it turns on. */
  spec: { title: string; version: string; openapi?: string; rules?: string[] };
  /** What reading the document noted (unknown formats, bundling problems). */
  specNotes?: string[];
  startedAt: string;
  durationMs: number;
  summary: { checks: number; passed: number; failed: number; skipped: number; passedWithKnownDifferences: number; requests: number };
  /** Every operation of the spec with its case count, in the spec's order. */
  operations: OperationSummary[];
  /** Ids of the known differences that excused at least one finding. */
  differencesApplied: string[];
  /** Set when nothing answered at the base URL (asked before any case); nothing else was sent. */
  unreachable?: string;
  /** Set when nothing was checked at all (no operation, or every case skipped), with the reason: not a pass. */
  nothingChecked?: string;
  /** Advice about the run itself (e.g. the target looks like the mock). */
  hints: string[];
  results: CaseResult[];
}

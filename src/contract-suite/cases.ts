import type { Options } from 'ajv/dist/2020.js';
import type { OperationContract } from '../contract/operations.js';
import type { OpenApiDocument } from '../contract/spec.js';
import type { SuiteCase } from './case.js';
import { authentication } from './cases/authentication.js';
import { bodySize } from './cases/body-size.js';
import { emptyBody } from './cases/empty-body.js';
import type { CaseFamily } from './cases/family.js';
import { fieldConstraints } from './cases/field-constraints.js';
import { mediaType } from './cases/media-type.js';
import { minimalRequest } from './cases/minimal-request.js';
import { pagination } from './cases/pagination.js';
import { pathParameters } from './cases/path-parameters.js';
import { requestExamples } from './cases/request-examples.js';
import { requestFields } from './cases/request-fields.js';
import { routing } from './cases/routing.js';
import { Credentials } from './credentials.js';
import { type NotProvoked, notProvoked } from './not-provoked.js';
import { type FactsOptions, type OperationFacts, readFacts } from './operation-facts.js';
import { rulesOf } from './rules.js';
import { SchemaValues } from './values/schema-values.js';

export type * from './case.js';

/**
 * The families of cases, in the order they run for each operation: positive
 * cases first (they feed the harvest of ids), then the ways to be refused.
 * A new family is one file in `cases/` and one line here.
 */
const FAMILIES: CaseFamily[] = [
  requestExamples,
  minimalRequest,
  requestFields,
  pagination,
  mediaType,
  emptyBody,
  authentication,
  fieldConstraints,
  pathParameters,
  bodySize,
  routing,
];

/** What the derivation says about one operation besides its cases. */
export interface OperationCoverage {
  operation: OperationContract;
  /** What could not be derived, and why. */
  notes: string[];
  /** Documented statuses no case provokes, and why. */
  notProvoked: NotProvoked[];
}

export interface Derivation {
  cases: SuiteCase[];
  /** What the derivation read about each operation; the runners need the list shapes and live values. */
  facts: OperationFacts[];
  /** One entry per operation of the spec, in the spec's order, including those with no case. */
  coverage: OperationCoverage[];
}

/**
 * Derives every case of the suite from the spec, for every operation: whatever
 * the operation declares (path, query, header and body fields, documented
 * statuses, security) decides which families apply. Positive cases of an
 * operation that may write are derived but marked skipped (see `operation-facts.ts`).
 * Operations that need ids from other answers run after the ones that give them.
 */
export function deriveCases(spec: OpenApiDocument, operations: OperationContract[], options: FactsOptions & { ajv?: Options } = {}): Derivation {
  const values = new SchemaValues(spec, options.ajv);
  const rules = options.rules ?? rulesOf(spec);
  const credentials = options.credentials ?? new Credentials(spec, { token: '' });
  const all = readFacts(spec, operations, values, { ...options, rules, credentials });
  const cases: SuiteCase[] = [];
  const coverage: OperationCoverage[] = [];
  for (const facts of runOrder(all)) {
    const notes: string[] = [...facts.notes];
    const own: SuiteCase[] = [];
    for (const family of FAMILIES) {
      const derived = family({ spec, values, facts, all, rules, credentials });
      notes.push(...(derived.notes ?? []));
      for (const { key, overrides, live, ...draft } of derived.cases) {
        own.push({
          ...draft,
          id: `${facts.operation.operationId} ${draft.polarity} ${draft.family}${key ? ` ${key}` : ''}`,
          operation: facts.operation,
          overrides: overrides ?? {},
          live: live ?? [],
          ...skipOf(facts, draft),
        });
      }
    }
    cases.push(...own);
    coverage.push({ operation: facts.operation, notes, notProvoked: notProvoked(facts, own) });
  }
  coverage.sort((a, b) => operations.indexOf(a.operation) - operations.indexOf(b.operation));
  return { cases, coverage, facts: all };
}

/** Refused credentials need no valid request; anything else is skipped when none can be sent, and a write's positive cases unless writes are allowed. */
function skipOf(facts: OperationFacts, draft: { family: string; polarity: string }): { skip?: string } {
  if (facts.blocked !== undefined && !AUTHENTICATION_FAMILIES.has(draft.family)) return { skip: facts.blocked };
  if (draft.polarity === 'positive' && facts.unsafe !== undefined) return { skip: facts.unsafe };
  return {};
}

const AUTHENTICATION_FAMILIES = new Set(['no-authorization', 'other-scheme', 'empty-bearer', 'malformed-key', 'unknown-key', 'refused-credential']);

/** The spec's order, except that operations needing a value from another answer (an id) come after the others. */
function runOrder(all: OperationFacts[]): OperationFacts[] {
  const needs = (facts: OperationFacts) => facts.live.some((value) => value.source === 'seen');
  return [...all.filter((facts) => !needs(facts)), ...all.filter(needs)];
}

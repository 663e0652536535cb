import type { ResponseValidationMode } from '../config/env.js';
import { type ObservedResponse, ResponseChecker } from '../contract/response-checker.js';
import type { OpenApiDocument } from '../contract/spec.js';

export type { ResponseValidationMode };

/** An answer the server was about to send that breaks the contract: a bug in a handler, never the client's fault. */
export class ContractBreach extends Error {
  readonly operationId: string;
  readonly violations: string[];

  constructor(operationId: string, handler: string, status: number, violations: string[]) {
    super(`the ${status} answer of ${operationId} (handler ${handler}) breaks the contract: ${violations.join('; ')}`);
    this.name = 'ContractBreach';
    this.operationId = operationId;
    this.violations = violations;
  }
}

export interface ResponseValidator {
  readonly mode: ResponseValidationMode;
  /** Checks one answer; in `strict` mode throws a `ContractBreach`, in `log` mode reports it. */
  check(operationId: string, response: ObservedResponse): void;
}

/**
 * Builds the check from the same `ResponseChecker` the tests and the contract suite
 * use, so the server holds itself to exactly their rules. Each response schema is
 * compiled the first time an answer needs it (see `ResponseChecker`).
 */
export function createResponseValidator(
  spec: OpenApiDocument,
  mode: ResponseValidationMode,
  options: { handlerName: (operationId: string) => string; report: (breach: ContractBreach) => void },
): ResponseValidator {
  if (mode === 'off') return { mode, check: () => undefined };
  const checker = checkerFor(spec);
  return {
    mode,
    check(operationId, response) {
      const violations = checker.check(operationId, response).filter((violation) => !violation.startsWith('server error'));
      if (violations.length === 0) return;
      const breach = new ContractBreach(operationId, options.handlerName(operationId), response.status, violations);
      if (mode === 'strict') throw breach;
      options.report(breach);
    },
  };
}

/** A checker keeps what it compiled; apps built from one spec (tests build many) share one. */
const checkers = new WeakMap<OpenApiDocument, ResponseChecker>();
function checkerFor(spec: OpenApiDocument): ResponseChecker {
  const known = checkers.get(spec);
  if (known) return known;
  const checker = new ResponseChecker(spec);
  checkers.set(spec, checker);
  return checker;
}

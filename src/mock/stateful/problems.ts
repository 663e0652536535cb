/**
 * The problems the stateful mock answers itself (an item that is gone, a credential a sign-out ended), in
 * the contract's words as the edge writes its own: the operation's documented example for that status with
 * this request's `instance` and `requestId`, else the contract's problem type for the status, else a plain
 * RFC 9457 problem for a spec that has no problem types of its own.
 */
import { randomUUID } from 'node:crypto';
import type { OperationContract } from '../../contract/operations.js';
import { isObject, type OpenApiDocument } from '../../contract/spec.js';
import { type ProblemType, problemBody } from '../../http/problems.js';
import type { ProblemBounds } from '../../http/request-contract.js';
import { answerExamples } from './examples.js';

export interface ProblemFacts {
  spec: OpenApiDocument;
  problemTypes: ReadonlyMap<number, ProblemType>;
  bounds: ProblemBounds;
  /** The example of each header the spec declares on an operation's answer with a status (`WWW-Authenticate` on a 401). */
  declaredHeaders: (operation: OperationContract, status: number) => Readonly<Record<string, string>>;
}

const TITLES: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found' };

export function problemAnswer(facts: ProblemFacts, operation: OperationContract, status: 401 | 404, instance: string, detail: string): Response {
  const requestId = randomUUID();
  const type = facts.problemTypes.get(status);
  // A 404's example names what is missing ("No key with this id"); a 401's first example may be another cause (a wrong password).
  const documented = status === 404 || !type ? problemExample(facts, operation, status) : undefined;
  const body = documented
    ? { ...documented, ...('instance' in documented && { instance }), ...('requestId' in documented && { requestId }) }
    : type
      ? problemBody(type, detail, { instance, requestId }, facts.bounds)
      : { type: 'about:blank', title: TITLES[status], status, detail, instance };
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...facts.declaredHeaders(operation, status), 'content-type': 'application/problem+json', 'x-request-id': requestId },
  });
}

/** The operation's documented problem for the status, when the spec gives one (`KeyNotFound`'s example). */
function problemExample(facts: ProblemFacts, operation: OperationContract, status: number) {
  const response = operation.responses[String(status)];
  if (!response || !Object.keys(response.content).some((type) => /problem\+json/i.test(type))) return undefined;
  const [example] = answerExamples(facts.spec, operation, status).filter(isObject);
  return example;
}

/**
 * The problems the stateful mock answers itself (an item that is gone, a credential a sign-out ended, a cursor of
 * another list), as the
 * spec documents them for the operation and as the edge writes its own: the contract's problem type for the
 * status when the spec has one (this project's specs), else the operation's example for that status with this
 * request's `instance` and `requestId`, else a plain RFC 9457 problem where the documented schema takes one, else a
 * value of the documented schema (a foreign spec's `{code, message}`).
 */
import { randomUUID } from 'node:crypto';
import type { OperationContract } from '../../contract/operations.js';
import { isObject, type Json, type OpenApiDocument } from '../../contract/spec.js';
import type { Violation } from '../../contract/types.js';
import { type ProblemType, problemBody } from '../../http/problems.js';
import type { ProblemBounds } from '../../http/request-contract.js';
import { answerExamples } from './examples.js';
import type { ValueMaker } from './make-values.js';

export interface ProblemFacts {
  spec: OpenApiDocument;
  maker: ValueMaker;
  problemTypes: ReadonlyMap<number, ProblemType>;
  bounds: ProblemBounds;
  /** The example of each header the spec declares on an operation's answer with a status (`WWW-Authenticate` on a 401). */
  declaredHeaders: (operation: OperationContract, status: number) => Readonly<Record<string, string>>;
}

const TITLES: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found', 422: 'Unprocessable Content' };

export function problemAnswer(
  facts: ProblemFacts,
  operation: OperationContract,
  status: 401 | 404 | 422,
  instance: string,
  detail: string,
  errors?: readonly Violation[],
): Response {
  const requestId = randomUUID();
  const [mediaType, media] = Object.entries(operation.responses[String(status)]?.content ?? {}).find(([type]) => /json/i.test(type)) ?? [];
  const type = facts.problemTypes.get(status);
  // A 404's example names what is missing ("You have no API key with this id"); a 401's first example may be another cause.
  const example = status === 404 || !type ? answerExamples(facts.spec, operation, status).find(isObject) : undefined;
  let body: Json | undefined;
  if (example) body = { ...example, ...('instance' in example && { instance }), ...('requestId' in example && { requestId }) };
  else if (type && (mediaType === undefined || /problem\+json/i.test(mediaType)))
    body = problemBody(type, detail, { instance, requestId }, facts.bounds, errors);
  else {
    // RFC 9457's plain problem where the documented schema takes it (a foreign spec's Problem), else any value of that schema.
    const plain = { type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail, instance };
    body = !media || facts.maker.values.isValid(media.schema, plain) ? plain : (facts.maker.values.one(media.schema) ?? plain);
  }
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      ...facts.declaredHeaders(operation, status),
      'content-type': mediaType ?? 'application/problem+json',
      'x-request-id': requestId,
    },
  });
}

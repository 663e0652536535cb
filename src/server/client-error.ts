import type { Problem, ProblemType } from '../contract/types.js';
import { PROBLEM_TYPES } from './problems.js';

const CLIENT_ERRORS: Record<string, [ProblemType, string]> = {
  HPE_HEADER_OVERFLOW: ['urn:problem-type:header-fields-too-large', 'The request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['urn:problem-type:request-timeout', 'The request was not received in time.'],
};

/**
 * The raw HTTP answer for a request Node's parser refuses before the app sees it,
 * still as the contract's problem+json: oversized headers get 431, a client too
 * slow to send its request gets 408, anything else that is not valid HTTP gets
 * 400. The connection is closed afterwards.
 */
export function clientErrorResponse(error: NodeJS.ErrnoException): string {
  const [type, detail] = CLIENT_ERRORS[error.code ?? ''] ?? ['urn:problem-type:malformed-request', 'The request is not valid HTTP.'];
  const { status, title } = PROBLEM_TYPES[type];
  const body: Problem = { type, title, status, detail };
  const text = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${title}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    '',
    text,
  ].join('\r\n');
}

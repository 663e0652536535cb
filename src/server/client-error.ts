import type { Problem } from '../contract/types.js';
import { PROBLEM_TYPES } from './problems.js';

/**
 * The raw HTTP answer for a request Node's parser refuses before the app sees it,
 * still as the contract's problem+json: oversized headers get 431, anything else
 * that is not valid HTTP gets 400. The connection is closed afterwards.
 */
export function clientErrorResponse(error: NodeJS.ErrnoException): string {
  const type = error.code === 'HPE_HEADER_OVERFLOW' ? 'urn:problem-type:header-fields-too-large' : 'urn:problem-type:malformed-request';
  const { status, title } = PROBLEM_TYPES[type];
  const detail = status === 431 ? 'The request headers are too large.' : 'The request is not valid HTTP.';
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

import type { UnstorableInput } from '../store/store.js';
import type { AppLogger } from './app-logger.js';
import { ApiError } from './problems.js';

/**
 * Turns `UnstorableInput` (the database refused a value the request carried) into the contract's `422`: the
 * input was wrong, not the server. There is no pointer to give, as the database does not say which value it
 * was, so the problem has no `errors`. Logged as an error all the same: the spec let the value through, so a
 * pattern or a check is missing there.
 */
export function unstorableInputProblem(logger: AppLogger, requestId: string | undefined, error: UnstorableInput): ApiError {
  logger.error({ requestId, reason: error.message }, 'the database refused a value the contract let through; answering 422');
  return new ApiError(
    'urn:problem-type:validation-failed',
    'The request holds a value this service cannot store (such as a U+0000 character or a time out of range). Change it and send the request again.',
  );
}

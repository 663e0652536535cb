import type { StoreUnavailable } from '../store/store.js';
import type { AppLogger } from './app-logger.js';
import { ApiError } from './problems.js';

/**
 * Turns `StoreUnavailable` (the database is away) into the contract's `503` problem with `Retry-After`, for
 * the public API and the web application alike. It is not a bug, so it is logged without a stack, at most
 * once a second with a count of the ones in between, and flushed at once: an operator is looking for it.
 */
export function storeUnavailableProblems(logger: AppLogger, retrySeconds: number): (requestId: string | undefined, error: StoreUnavailable) => ApiError {
  const retryAfter = String(retrySeconds);
  let lastLog = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  return (requestId, error) => {
    const at = performance.now();
    if (at - lastLog >= 1_000) {
      logger.error({ requestId, reason: error.message, alsoSince: unlogged }, 'store unavailable; answering 503');
      logger.flush?.();
      lastLog = at;
      unlogged = 0;
    } else {
      unlogged++;
    }
    return new ApiError('urn:problem-type:service-unavailable', `The service cannot reach its database right now. Retry in ${retryAfter} seconds.`, {
      headers: { 'Retry-After': retryAfter },
      reason: 'database-unavailable',
    });
  };
}

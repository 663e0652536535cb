/**
 * The handler `npm run fix` writes for an operation the spec gained and the code has not: it
 * compiles (the handler map is complete again) and throws, so each request answers the
 * contract's `500` and the log, the tests and the contract suite name what is missing, rather
 * than the build failing on a handler that is not written yet.
 */
export class NotImplementedError extends Error {
  override readonly name = 'NotImplementedError';
}

/**
 * A stand-in handler for `operationId`, to be replaced by the real one in `file`.
 *
 * @example
 * export const operationHandlers: OperationHandlers = {
 *   getItem: notImplemented('getItem', 'src/server/operations.ts'),
 * };
 */
export function notImplemented(operationId: string, file: string): () => Promise<never> {
  return async () => {
    throw new NotImplementedError(`${operationId} is not implemented: npm run fix wrote a stub of its handler in ${file}; write the handler there`);
  };
}

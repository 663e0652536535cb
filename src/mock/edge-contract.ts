/**
 * What the mock's edge reads from the document it serves: the operations, the methods of each path (for a
 * `405`'s `Allow`), and the bounds of a problem's fields. This project's contracts are compiled as the server
 * compiles them (`compileRequestContract`, which holds them to their `x-limits` and bounded `Problem`); a
 * foreign document (`npm run mock -- --spec their.yaml`, the stateful mock on another team's contract) has
 * neither, so its routes come from its operations alone and a problem's fields get RFC 9457's usual room.
 */
import { type OperationContract, readOperations } from '../contract/operations.js';
import type { OpenApiDocument } from '../contract/spec.js';
import { compileRequestContract, methodsOfPaths, type ProblemBounds } from '../http/request-contract.js';

export interface EdgeContract {
  operations: readonly OperationContract[];
  methodsByPath: Map<string, string[]>;
  problemBounds: ProblemBounds;
}

/** Room for a problem's fields where the spec does not bound them: this project's public contract's bounds. */
const FOREIGN_BOUNDS: ProblemBounds = { detail: 500, instance: 2048, requestId: 100, errors: 50, pointer: 512, violationDetail: 500 };

export function edgeContract(spec: OpenApiDocument): EdgeContract {
  if (spec['x-limits'] !== undefined) return compileRequestContract(spec);
  const operations = readOperations(spec, { nameless: 'method-path' });
  return { operations, methodsByPath: methodsOfPaths(operations), problemBounds: FOREIGN_BOUNDS };
}

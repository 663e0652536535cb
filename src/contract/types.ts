/**
 * Compile-time view of the contract: every type here is taken from the generated
 * `paths` / `operations` / `components`, never written by hand, so a spec change
 * that the code does not follow fails `npm run typecheck`.
 */
import type { components, operations } from '../../generated/openapi.js';

export type { components, operations, paths } from '../../generated/openapi.js';

export type OperationId = keyof operations;
export type Schemas = components['schemas'];
export type Item = Schemas['Item'];
export type Sort = Schemas['Sort'];
export type Problem = Schemas['Problem'];
export type ProblemType = Schemas['ProblemType'];
export type Violation = Schemas['Violation'];

type Responses<Id extends OperationId> = operations[Id]['responses'];

/** The JSON body an operation answers with for a given status. */
export type ResponseBody<Id extends OperationId, Status extends keyof Responses<Id>> = Responses<Id>[Status] extends {
  content: { 'application/json': infer Body };
}
  ? Body
  : never;

/** The options an operation takes: its JSON body for POSTs, its query string for GET. */
export type OperationInput<Id extends OperationId> = operations[Id] extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : operations[Id] extends { parameters: { query?: infer Query } }
    ? NonNullable<Query>
    : never;

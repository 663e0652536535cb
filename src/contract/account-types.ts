/**
 * Compile-time view of the account API's contract (`openapi/account.yaml`),
 * taken from `generated/account.d.ts` as `types.ts` takes the public API's.
 */
import type { components } from '../../generated/account.js';

export type { components as AccountComponents, operations as AccountOperations, paths as AccountPaths } from '../../generated/account.js';

export type AccountSchemas = components['schemas'];
export type AccountProblemType = AccountSchemas['ProblemType'];
export type AccountProblem = AccountSchemas['Problem'];
/** An API key as its owner sees it in the account API. */
export type ApiKeyView = AccountSchemas['ApiKey'];
export type KeyEventView = AccountSchemas['KeyEvent'];
/** A live session as its owner sees it in the account API. */
export type ActiveSessionView = AccountSchemas['ActiveSession'];
export type SessionInfo = AccountSchemas['SessionInfo'];

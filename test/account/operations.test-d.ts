import { describe, expectTypeOf, it } from 'vitest';
import type { AccountHandlers } from '../../src/account/operations.js';
import type { AccountClient } from '../../src/client/account.js';
import type { AccountOperations, AccountSchemas } from '../../src/contract/account-types.js';
import type { InputOf, ResultOf } from '../../src/contract/types.js';

describe('the account API handlers are bound to generated/account.d.ts through the same seam', () => {
  it('take their input from the account spec', () => {
    expectTypeOf<InputOf<AccountOperations['createKey']>['body']>().toEqualTypeOf<AccountSchemas['CreateKeyRequest']>();
    expectTypeOf<InputOf<AccountOperations['rollKey']>['path']['keyId']>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<AccountSchemas['CreateKeyRequest']['expiresInDays']>>().toEqualTypeOf<AccountSchemas['ExpiresInDays']>();
  });

  it('answer only the documented statuses: 201 for createKey, 204 without a body for signOut', () => {
    expectTypeOf<ResultOf<AccountOperations['createKey']>['status']>().toEqualTypeOf<201>();
    expectTypeOf<ResultOf<AccountOperations['signOut']>['status']>().toEqualTypeOf<204>();
    // @ts-expect-error createKey answers 201, not 200
    const wrong: ResultOf<AccountOperations['createKey']> = { status: 200, body: { key: {} as AccountSchemas['ApiKey'], secret: 'tka_x' } };
    expectTypeOf(wrong).toBeObject();
  });

  it('need a handler for every operation of the account spec', () => {
    // @ts-expect-error rollKey (and every other operation) has no handler here
    const handlers: AccountHandlers = { signUp: async () => ({ status: 201, body: {} as AccountSchemas['SessionInfo'] }) };
    expectTypeOf(handlers).toBeObject();
  });

  it('give the pages a client typed by the same spec', () => {
    const client = {} as AccountClient;
    // @ts-expect-error an expiry outside the presets does not compile
    void client.POST('/keys', { body: { name: 'CI', expiresInDays: 45 } });
    // @ts-expect-error a path the account spec does not have does not compile
    void client.GET('/shared');
    expectTypeOf(client.POST).toBeFunction();
  });
});

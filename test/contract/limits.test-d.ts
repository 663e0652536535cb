import { describe, expectTypeOf, it } from 'vitest';
import type { ResolvedLimits } from '../../src/config/limits.js';
import type { AccountLimits, AccountSpecLimits, ConnectionLimits, Limits, SpecLimits } from '../../src/contract/limits.js';

describe('the types of x-limits are derived from its schema', () => {
  it('give every limit as a number, and a group as an object of its fields', () => {
    expectTypeOf<Limits>().toEqualTypeOf<{
      maxBodyBytes: number;
      rateLimit: { requests: number; windowSeconds: number };
      failedAuthentication: { perAddress: number; windowSeconds: number };
    }>();
    expectTypeOf<ConnectionLimits>().toEqualTypeOf<{ headersTimeoutSeconds: number; requestTimeoutSeconds: number }>();
    expectTypeOf<ResolvedLimits['rateLimit']['requests']>().toEqualTypeOf<number>();
  });

  it("give the account API's groups as required on its own contract and optional on either", () => {
    expectTypeOf<AccountLimits['signIn']>().toEqualTypeOf<{
      failuresPerAccount: number;
      failuresPerClient: number;
      failuresPerDevice: number;
      backoffSeconds: number;
      maxBackoffSeconds: number;
      windowSeconds: number;
      deviceSeconds: number;
      successesPerAccount: number;
      successesPerClient: number;
      successIntervalSeconds: number;
    }>();
    expectTypeOf<AccountLimits['session']>().toEqualTypeOf<{ idleSeconds: number; absoluteSeconds: number }>();
    expectTypeOf<AccountSpecLimits['keys']>().toEqualTypeOf<{ activePerUser: number }>();
    expectTypeOf<SpecLimits['keys']>().toEqualTypeOf<{ activePerUser: number } | undefined>();
  });

  it('know no field the schema does not declare', () => {
    // @ts-expect-error the schema has no burst
    expectTypeOf<Limits['rateLimit']['burst']>().toBeNever();
    const limits = {} as SpecLimits;
    // @ts-expect-error nor a misspelt limit
    expectTypeOf(limits.maxBodySize).toBeUnknown();
  });
});

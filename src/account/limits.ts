import { isObject, type Json, type OpenApiDocument } from '../contract/spec.js';

/** The account API's own limits, read from its spec's `x-limits` (the body size, timeouts and request rate are read as for any contract). */
export interface AccountLimits {
  signIn: { failuresPerAccount: number; failuresPerClient: number; windowSeconds: number };
  session: { idleSeconds: number; absoluteSeconds: number };
  keys: { activePerUser: number };
}

export function readAccountLimits(spec: OpenApiDocument): AccountLimits {
  const read = (group: string, field: string): number => {
    const values: Json | undefined = isObject(spec['x-limits']) ? spec['x-limits'][group] : undefined;
    const value = isObject(values) ? values[field] : undefined;
    if (typeof value !== 'number') throw new Error(`the account spec must declare x-limits.${group}.${field}`);
    return value;
  };
  return {
    signIn: {
      failuresPerAccount: read('signIn', 'failuresPerAccount'),
      failuresPerClient: read('signIn', 'failuresPerClient'),
      windowSeconds: read('signIn', 'windowSeconds'),
    },
    session: { idleSeconds: read('session', 'idleSeconds'), absoluteSeconds: read('session', 'absoluteSeconds') },
    keys: { activePerUser: read('keys', 'activePerUser') },
  };
}

import { describe, expect, it } from 'vitest';
import { isDataException, isUnavailable, translateError } from '../../src/store/postgres-store.js';
import { StoreUnavailable, UnstorableInput } from '../../src/store/store.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('which PostgreSQL errors mean the database is away (503) rather than a bug (500)', () => {
  it.each([
    { given: withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), want: true },
    { given: withCode('read ECONNRESET', 'ECONNRESET'), want: true },
    { given: new Error('timeout exceeded when trying to connect'), want: true },
    { given: new Error('Connection terminated unexpectedly'), want: true },
    { given: new Error('Query read timeout'), want: true },
    { given: new Error('Cannot use a pool after calling end on the pool'), want: true },
    { given: withCode('terminating connection due to administrator command', '57P01'), want: true },
    { given: withCode('the database system is starting up', '57P03'), want: true },
    { given: withCode('sorry, too many clients already', '53300'), want: true },
    { given: withCode('canceling statement due to statement timeout', '57014'), want: true },
    { given: withCode('connection failure', '08006'), want: true },
    { given: withCode('duplicate key value violates unique constraint "users_name_key"', '23505'), want: false },
    { given: withCode('syntax error at or near "SELEC"', '42601'), want: false },
    { given: new Error('no item itm_0000000000000000'), want: false },
  ])('$given.message: $want', ({ given, want }) => {
    expect(isUnavailable(given)).toBe(want);
    expect(translateError(given) instanceof StoreUnavailable).toBe(want);
  });
});

describe('which PostgreSQL errors mean the database refused a value of the request (422) rather than a bug (500)', () => {
  it.each([
    { given: withCode('invalid byte sequence for encoding "UTF8": 0x00', '22021'), want: true },
    { given: withCode('date/time field value out of range: "0"', '22008'), want: true },
    { given: withCode('invalid input syntax for type timestamp with time zone: "1 2"', '22007'), want: true },
    { given: withCode('time zone displacement out of range: "+275760-09-13T00:00:00.000Z"', '22009'), want: true },
    { given: withCode('value too long for type character varying(64)', '22001'), want: true },
    { given: withCode('duplicate key value violates unique constraint "users_name_key"', '23505'), want: false },
    { given: withCode('connection failure', '08006'), want: false },
    { given: new Error('no item itm_0000000000000000'), want: false },
  ])('$given.message: $want', ({ given, want }) => {
    expect(isDataException(given)).toBe(want);
    const translated = translateError(given);
    expect(translated instanceof UnstorableInput).toBe(want);
    // The value is not repeated: the message names the SQLSTATE only.
    if (want) expect((translated as Error).message).toBe(`the database refused a value (SQLSTATE ${(given as Error & { code?: string }).code})`);
  });
});

import { describe, expect, it } from 'vitest';
import type { AccountProblem } from '../../src/client/account.js';
import { fieldProblem, type NamedField } from '../../src/pages/field-problem.js';

const FIELDS: NamedField[] = [
  { pointer: '/name', id: 'name', subject: 'The user name' },
  { pointer: '/password', id: 'password', subject: 'The password' },
];

function validation(...errors: Array<{ pointer: string; detail: string }>): AccountProblem {
  return {
    type: 'urn:problem-type:validation-failed',
    title: 'Validation failed',
    status: 422,
    detail: `The request breaks the contract in ${errors.length} place.`,
    errors: errors.map((error) => ({ in: 'body', ...error })),
  };
}

describe('a refused form, as the sign-up and sign-in pages show it', () => {
  it('names the password, in a sentence, when the problem is about the password', () => {
    const shown = fieldProblem(
      validation({ pointer: '/password', detail: 'repeats a character or a group of characters, so it is easy to guess' }),
      FIELDS,
      'fallback',
    );
    expect(shown).toEqual({ message: 'The password repeats a character or a group of characters, so it is easy to guess.', invalid: ['password'] });
  });

  it('lists each field once, in the order of the violations, the first to be focused', () => {
    const shown = fieldProblem(
      validation({ pointer: '/password', detail: 'is too short' }, { pointer: '/name', detail: 'is too long' }, { pointer: '/password', detail: 'is common' }),
      FIELDS,
      'fallback',
    );
    expect(shown.invalid).toEqual(['password', 'name']);
    expect(shown.message).toBe('The password is too short. The user name is too long. The password is common.');
  });

  it('shows a violation of a field the form does not have as the request’s, and marks no field for it', () => {
    expect(fieldProblem(validation({ pointer: '/extra', detail: 'is not a known field' }), FIELDS, 'fallback')).toEqual({
      message: 'The request is not a known field.',
      invalid: [],
    });
  });

  it('shows any other problem’s detail, starting with a capital letter, and names no field', () => {
    const wrong: AccountProblem = { type: 'urn:problem-type:unauthorized', title: 'Unauthorized', status: 401, detail: 'the user name or password is wrong.' };
    expect(fieldProblem(wrong, FIELDS, 'fallback')).toEqual({ message: 'The user name or password is wrong.', invalid: [] });
    expect(fieldProblem(undefined, FIELDS, 'That did not work. Try again.')).toEqual({ message: 'That did not work. Try again.', invalid: [] });
  });
});

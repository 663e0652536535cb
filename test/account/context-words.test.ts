/** The words a guesser of this account would try first (issue 33 point 5): the name, its parts and its beginnings. */
import { describe, expect, it } from 'vitest';
import { contextWords, passwordProblem } from '../../src/account/password-rule.js';
import { passwordStrength } from '../../src/account/passwords.js';

describe('context words of an account', () => {
  it('are the name, its parts of four letters or more, its beginnings of four or more, and the service’s name', () => {
    const words = contextWords('Grace.Hopper42');
    expect(words).toEqual(expect.arrayContaining(['grace.hopper42', 'grace', 'hopper', 'grac', 'grace.hop', 'bearer']));
    expect(words).not.toContain('42');
    expect(contextWords('ann')).toEqual(['ann', 'bearer list', 'bearerlist', 'bearer-list', 'bearer', 'list']);
  });

  it('refuse a password made of the user name and its beginning, which passed before', async () => {
    const strength = await passwordStrength('quorvintelquorvi', contextWords('quorvintel'));
    expect(passwordProblem(strength, 8)).toBeDefined();
    // The same password for another name is not built on it.
    expect(passwordProblem(await passwordStrength('quorvintelquorvi', contextWords('zoe')), 8)).toBeUndefined();
  });
});

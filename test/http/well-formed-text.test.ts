import { describe, expect, it } from 'vitest';
import { illFormedStrings } from '../../src/http/well-formed-text.js';
import { createTestWebApp } from '../helpers/web-app.js';

describe('text that is not well-formed Unicode', () => {
  it('is found at any depth, keys included, and a surrogate pair is text', () => {
    expect(illFormedStrings({ name: 'ok 😀', password: 'quiet\ud800orbit', list: ['a', '\udc00b'], 'k\ud800/x': 1 }).sort()).toEqual(
      ['/password', '/list/1', '/k\ud800~1x'].sort(),
    );
    // Nested deeper than the call stack reaches: walked without recursion.
    let deep: unknown = 'quiet\ud800';
    for (let depth = 0; depth < 200_000; depth++) deep = [deep];
    expect(illFormedStrings(deep)).toHaveLength(1);
    expect(illFormedStrings({ name: '\ud83d\ude00', nested: { deep: 'fine' } })).toEqual([]);
  });

  it('is refused with a 422 naming the field, as U+0000 is: one password is one string', async () => {
    const t = await createTestWebApp();
    const signUp = await t.send('POST', '/api/users', {
      rawBody: '{"name":"lone","password":"quiet\\ud800orbit velvet lantern"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(signUp.status, signUp.text).toBe(422);
    expect(signUp.json.errors).toContainEqual(
      expect.objectContaining({ in: 'body', pointer: '/password', detail: expect.stringContaining('well-formed Unicode') }),
    );
  });
});

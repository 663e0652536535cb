/**
 * The passwords the docs show, held to the server's rule: the weak example the spec and
 * docs/web-application.md name is refused with the violation the spec's `EasyPasswordProblem` shows, and the
 * strong one, and every password in a request example of the account spec, is accepted. (The sample used to
 * be "correct horse battery staple": the most quoted passphrase there is, shown as a good one.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { deref, isObject } from '../../src/contract/spec.js';
import { accountSpec, createTestWebApp } from '../helpers/web-app.js';

const schemas = accountSpec.components['schemas'] as Record<string, { properties: Record<string, { description: string }> }>;
const description = schemas['SignUpRequest']?.properties['password']?.description ?? '';
const docsPage = readFileSync(join(projectRoot, 'docs', 'web-application.md'), 'utf8').replace(/\s+/g, ' ');

/** The one backticked password a text calls refused, and the one it calls accepted. */
function examplesIn(text: string, where: string): { weak: string; strong: string } {
  const weak = /`([^`]+)` is refused/.exec(text)?.[1];
  const strong = /`([^`]+)`(?:, [^,]+,)? is accepted/.exec(text)?.[1];
  if (weak === undefined || strong === undefined) throw new Error(`${where} no longer shows a refused and an accepted password: update this test with it`);
  return { weak, strong };
}

/** Every password field of every request body example of the account spec, with where it is. */
function requestExamplePasswords(): Array<{ at: string; password: string }> {
  const found: Array<{ at: string; password: string }> = [];
  for (const [path, item] of Object.entries(accountSpec.paths)) {
    for (const [method, operation] of Object.entries(isObject(item) ? item : {})) {
      const content = isObject(operation) && isObject(operation['requestBody']) ? operation['requestBody']['content'] : undefined;
      const media = isObject(content) ? content['application/json'] : undefined;
      const examples = isObject(media) && isObject(media['examples']) ? media['examples'] : {};
      for (const [name, example] of Object.entries(examples)) {
        const value = isObject(example) ? deref(accountSpec, example)['value'] : undefined;
        for (const [field, password] of Object.entries(isObject(value) ? value : {}))
          if (/password/i.test(field) && typeof password === 'string')
            found.push({ at: `${method.toUpperCase()} ${path} example ${name}, ${field}`, password });
      }
    }
  }
  return found;
}

const easyProblem = (accountSpec.components['examples'] as Record<string, { value: { errors: Array<{ detail: string }> } }>)['EasyPasswordProblem'];

describe("the docs' sample passwords", () => {
  it('are the same in the spec and on docs/web-application.md', () => {
    expect(examplesIn(docsPage, 'docs/web-application.md')).toEqual(examplesIn(description, 'SignUpRequest.password'));
  });

  it("the weak one is refused with the spec's EasyPasswordProblem violation", async () => {
    const { weak } = examplesIn(description, 'SignUpRequest.password');
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', { body: { name: 'ada', password: weak } });
    expect(response.status, response.text).toBe(422);
    expect(response.json.errors).toEqual([{ in: 'body', pointer: '/password', detail: easyProblem?.value.errors[0]?.detail }]);
  });

  it('the strong one, and every password of a request example, is accepted at sign-up', async () => {
    const { strong } = examplesIn(description, 'SignUpRequest.password');
    const passwords = [{ at: 'SignUpRequest.password', password: strong }, ...requestExamplePasswords()];
    expect(passwords.length).toBeGreaterThanOrEqual(4);
    const t = await createTestWebApp();
    for (const [index, { at, password }] of passwords.entries()) {
      const response = await t.send('POST', '/api/users', { body: { name: `ada${index}`, password } });
      expect(response.status, `${at}: ${response.text}`).toBe(201);
    }
  });
});

import { account } from './api.js';
import { busy, byId, say } from './dom.js';
import { fieldProblem, type NamedField } from './field-problem.js';

/** The fields of both forms, as a refusal names them. */
const FIELDS: readonly NamedField[] = [
  { pointer: '/name', id: 'name', subject: 'The user name' },
  { pointer: '/password', id: 'password', subject: 'The password' },
];

/** Sign in and sign up: a signed-in visitor goes straight to the settings; a successful form does too. */
export async function showAccountPages(page: 'sign-in' | 'sign-up'): Promise<void> {
  const form = byId<HTMLFormElement>(`${page}-form`);
  const error = byId('form-error');
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (!submit) throw new Error('the form has no submit button');
  // Where focus goes when the answer names no field: a wrong sign-in is most often the password (the 401 does not say which).
  const usual = page === 'sign-in' ? 'password' : 'name';
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { name: String(data.get('name') ?? '').trim(), password: String(data.get('password') ?? '') };
    void busy(submit, async () => {
      say(error, '');
      markInvalid(form, [], error.id);
      let invalid: string[] = [];
      try {
        const result = page === 'sign-in' ? await account.POST('/session', { body }) : await account.POST('/users', { body });
        if (result.data) {
          location.assign('/settings');
          return;
        }
        const shown = fieldProblem(result.error, FIELDS, 'That did not work. Try again.');
        // A taken name is about the user name, though its 409 lists no violation.
        invalid = page === 'sign-up' && result.response.status === 409 ? ['name'] : shown.invalid;
        say(error, shown.message);
      } catch {
        say(error, 'The server could not be reached. Check your connection and try again.');
      }
      markInvalid(form, invalid, error.id);
      byId<HTMLInputElement>(invalid[0] ?? usual).focus();
    });
  });
  try {
    const { data } = await account.GET('/session');
    if (data) location.replace('/settings');
  } catch {
    // Not reachable now: the form says so when it is used.
  }
}

/**
 * Marks the fields with these ids `aria-invalid` and describes each by the message (`messageId`) before its
 * hint, so a screen reader landing on it says what is wrong; every other field of the form is unmarked.
 */
function markInvalid(form: HTMLFormElement, invalid: readonly string[], messageId: string): void {
  for (const input of form.querySelectorAll<HTMLInputElement>('input[id]')) {
    const described = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((id) => id !== '' && id !== messageId);
    if (invalid.includes(input.id)) {
      input.setAttribute('aria-invalid', 'true');
      described.unshift(messageId);
    } else input.removeAttribute('aria-invalid');
    if (described.length > 0) input.setAttribute('aria-describedby', described.join(' '));
    else input.removeAttribute('aria-describedby');
  }
}

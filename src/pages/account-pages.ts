import { account, problemMessage } from './api.js';
import { busy, byId, say } from './dom.js';

/** Sign in and sign up: a signed-in visitor goes straight to the settings; a successful form does too. */
export async function showAccountPages(page: 'sign-in' | 'sign-up'): Promise<void> {
  const form = byId<HTMLFormElement>(`${page}-form`);
  const error = byId('form-error');
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (!submit) throw new Error('the form has no submit button');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { name: String(data.get('name') ?? '').trim(), password: String(data.get('password') ?? '') };
    void busy(submit, async () => {
      say(error, '');
      try {
        const result = page === 'sign-in' ? await account.POST('/session', { body }) : await account.POST('/users', { body });
        if (result.data) {
          location.assign('/settings');
          return;
        }
        say(error, problemMessage(result.error, 'That did not work. Try again.'));
      } catch {
        say(error, 'The server could not be reached. Check your connection and try again.');
      }
      byId<HTMLInputElement>(page === 'sign-in' ? 'password' : 'name').focus();
    });
  });
  try {
    const { data } = await account.GET('/session');
    if (data) location.replace('/settings');
  } catch {
    // Not reachable now: the form says so when it is used.
  }
}

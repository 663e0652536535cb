import { type AccountProblem, createAccountClient } from '../client/account.js';

/** The account API on this page's own origin; the session cookie goes with every call. */
export const account = createAccountClient({ baseUrl: '/api' });

/** What to tell the user about a failed call: the problem's detail, or a plain fallback when the server said nothing usable. */
export function problemMessage(error: AccountProblem | undefined, fallback: string): string {
  if (!error) return fallback;
  if (error.type === 'urn:problem-type:validation-failed' && error.errors?.length) {
    const text = error.errors.map((violation) => `${violation.pointer.replace(/^\//, '') || 'request'} ${violation.detail}`).join('; ');
    // A message the page shows as a sentence starts with a capital letter ("Name is ...").
    return text.charAt(0).toUpperCase() + text.slice(1);
  }
  return error.detail || fallback;
}

/** The root of the public API, which the server writes into each page. */
export function publicApiUrl(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="public-api-url"]')?.content ?? '';
}

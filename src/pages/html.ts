/**
 * The pages' HTML, written once at startup. No user data is ever put in here:
 * the script fills in names and keys with `textContent` only.
 */
import { type AccountPresets, accountPresets, type Presets } from '../contract/presets.js';

export interface PageOptions {
  /** Root of the public API, shown in the ready-to-paste curl. */
  publicApiUrl: string;
}

/** Every page, by path; the selects offer the account spec's presets. */
export function renderPages(options: PageOptions, presets: AccountPresets = accountPresets()): Map<string, string> {
  const page = (name: string, title: string, body: string) => layout({ name, title, body, publicApiUrl: options.publicApiUrl });
  return new Map([
    ['/sign-in', page('sign-in', 'Sign in', SIGN_IN)],
    ['/sign-up', page('sign-up', 'Create an account', SIGN_UP)],
    ['/settings', page('settings', 'Account settings', SETTINGS(presets))],
    ['/not-found', page('not-found', 'Page not found', NOT_FOUND)],
  ]);
}

function layout(page: { name: string; title: string; body: string; publicApiUrl: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="public-api-url" content="${escapeHtml(page.publicApiUrl)}">
<title>${page.title} · Bearer List</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body data-page="${page.name}">
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
  <p class="brand"><a href="/">Bearer List</a></p>
  <div class="account" id="account" hidden>
    <span>Signed in as <strong id="signed-in-as"></strong></span>
    <button type="button" id="sign-out">Sign out</button>
  </div>
</header>
<p class="hint plain-http" id="plain-http" role="note" hidden>This site is served over plain HTTP, for trying it out on your own
computer: any other server on this computer can read its cookies and set its own. Anywhere else, use its https address.</p>
<main id="main" tabindex="-1">
${page.body}
</main>
</body>
</html>
`;
}

/**
 * What a form with a password says when the page's script is not running (JavaScript off). The form still posts
 * to its own page (`method="post"`, never the GET default that puts the password in the URL); the server
 * answers that post with a redirect back, the body unread (`formFallback` in `serve.ts`).
 */
function needsScript(what: string): string {
  return `<noscript><p class="error">This page needs JavaScript to ${what}. Turn it on for this site and try again; a password sent without it is not read.</p></noscript>`;
}

const SIGN_IN = `<h1>Sign in</h1>
<form id="sign-in-form" class="card" method="post" action="/sign-in">
  ${needsScript('sign you in')}
  <p id="form-error" class="error" role="alert" hidden></p>
  <div class="field">
    <label for="name">User name</label>
    <input id="name" name="name" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="64">
  </div>
  <div class="field">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
  </div>
  <button type="submit">Sign in</button>
</form>
<p>New here? <a href="/sign-up">Create an account</a>.</p>`;

const SIGN_UP = `<h1>Create an account</h1>
<form id="sign-up-form" class="card" method="post" action="/sign-up">
  ${needsScript('make your account')}
  <p id="form-error" class="error" role="alert" hidden></p>
  <div class="field">
    <label for="name">User name</label>
    <input id="name" name="name" autocomplete="username" autocapitalize="none" spellcheck="false" required minlength="3" maxlength="64"
      pattern="[a-z0-9][a-z0-9._\\-]*" aria-describedby="name-hint">
    <p class="hint" id="name-hint">3 to 64 lower-case letters, digits, dots, dashes or underscores.</p>
  </div>
  <div class="field">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="15" maxlength="256" aria-describedby="password-hint">
    <p class="hint" id="password-hint">At least 15 characters. A few unrelated words make a strong one.</p>
  </div>
  <button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/sign-in">Sign in</a>.</p>`;

/** A select's options, one per preset of the spec, the default selected. */
function options<Value extends number>({ values, default: chosen }: Presets<Value>, label: (value: Value) => string, indent = '      '): string {
  return values.map((value) => `<option value="${value}"${value === chosen ? ' selected' : ''}>${label(value)}</option>`).join(`\n${indent}`);
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
/** 7 days, 1 year. */
const inDays = (days: number) => (days % 365 === 0 ? plural(days / 365, 'year') : plural(days, 'day'));
/** No time, 1 hour, 24 hours, 3 days. */
const inHours = (hours: number) => (hours === 0 ? 'No time: stop it now' : hours < 48 || hours % 24 !== 0 ? plural(hours, 'hour') : plural(hours / 24, 'day'));

const SETTINGS = (presets: AccountPresets) => `<h1>Account settings</h1>
<p id="status" class="status" role="status"></p>

<section aria-labelledby="keys-heading">
  <h2 id="keys-heading" tabindex="-1">API keys</h2>
  <p>A key lets a program use the public API at <code id="api-url"></code>.
    Send it on every request as <code>Authorization: Bearer &lt;key&gt;</code>.</p>

  <section id="new-key" class="card new-key" aria-labelledby="new-key-heading" hidden>
    <h3 id="new-key-heading" tabindex="-1">Copy your new key now</h3>
    <p>This is the only time <strong id="new-key-name"></strong> is shown. Store it somewhere safe, such as a password manager or your CI's secrets.</p>
    <label for="new-key-secret">API key</label>
    <div class="copy-row">
      <input id="new-key-secret" readonly spellcheck="false" autocomplete="off">
      <button type="button" id="copy-key">Copy key</button>
    </div>
    <label for="new-key-curl">Try it: list your items with curl</label>
    <div class="copy-row">
      <textarea id="new-key-curl" readonly rows="4" spellcheck="false"></textarea>
      <button type="button" id="copy-curl">Copy command</button>
    </div>
    <p class="hint">The command asks for the key: paste it at the prompt, where it is not shown, and press Enter. The key stays out of your shell's history (bash, zsh) and out of the process list other accounts on this machine can read.</p>
    <p id="copy-status" class="status" role="status"></p>
    <button type="button" id="new-key-done">Done, I have stored it</button>
  </section>

  <form id="create-key-form" class="card">
    <h3>Generate a new key</h3>
    <p id="create-error" class="error" role="alert" hidden></p>
    <div class="field">
      <label for="key-name">Name</label>
      <input id="key-name" name="name" required maxlength="100" autocomplete="off" aria-describedby="key-name-hint">
      <p class="hint" id="key-name-hint">What the key is for, e.g. “CI pipeline”.</p>
    </div>
    <div class="field">
      <label for="key-expiry">Expires in</label>
      <select id="key-expiry" name="expiresInDays">
      ${options(presets.expiresInDays, inDays)}
      </select>
    </div>
    <button type="submit">Generate key</button>
  </form>

  <h3 id="your-keys">Your keys</h3>
  <p id="keys-empty" hidden>You have no API keys yet.</p>
  <ul id="key-list" class="keys" aria-labelledby="your-keys"></ul>
  <button type="button" id="more-keys" hidden>Show older keys</button>
</section>

<section aria-labelledby="events-heading">
  <h2 id="events-heading">Key activity</h2>
  <p id="events-empty" hidden>Nothing has happened to your keys yet.</p>
  <ol id="event-list" class="events" aria-labelledby="events-heading"></ol>
  <button type="button" id="more-events" hidden>Show older activity</button>
</section>

<section aria-labelledby="password-heading">
  <h2 id="password-heading">Change password</h2>
  <form id="password-form" class="card" method="post" action="/settings">
    ${needsScript('change your password')}
    <p id="password-error" class="error" role="alert" hidden></p>
    <div class="field">
      <label for="current-password">Current password</label>
      <input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required maxlength="256">
    </div>
    <div class="field">
      <label for="new-password">New password</label>
      <input id="new-password" name="newPassword" type="password" autocomplete="new-password" required minlength="15" maxlength="256"
        aria-describedby="new-password-hint">
      <p class="hint" id="new-password-hint">At least 15 characters. A few unrelated words make a strong one. Every other browser signed in to your account is signed out.</p>
    </div>
    <div class="field">
      <input id="revoke-keys" name="revokeKeys" type="checkbox" aria-describedby="revoke-keys-hint"> <label for="revoke-keys">Also revoke all my API keys</label>
      <p class="hint" id="revoke-keys-hint">Your API keys keep working after a password change unless you tick this: then every active key stops at once. Tick it if your password may have leaked.</p>
    </div>
    <button type="submit">Change password</button>
  </form>
</section>

<section aria-labelledby="sessions-heading">
  <h2 id="sessions-heading" tabindex="-1">Active sessions</h2>
  <p>Every browser signed in to your account. End a session you do not recognise, or no longer use.</p>
  <ul id="session-list" class="keys" aria-labelledby="sessions-heading"></ul>
</section>

<dialog id="revoke-dialog" aria-labelledby="revoke-title">
  <form method="dialog">
    <h2 id="revoke-title">Revoke <span id="revoke-name"></span>?</h2>
    <p>Programs that use this key (<code id="revoke-hint"></code>) stop working at their next request. This cannot be undone.</p>
    <div class="actions">
      <button value="cancel" autofocus>Cancel</button>
      <button value="confirm" class="danger" id="revoke-confirm">Revoke key</button>
    </div>
  </form>
</dialog>

<dialog id="roll-dialog" aria-labelledby="roll-title">
  <form method="dialog">
    <h2 id="roll-title">Roll <span id="roll-name"></span>?</h2>
    <p>You get a new key with the same name. The old key (<code id="roll-hint"></code>) keeps working for the time you choose, so your programs can switch over.</p>
    <div class="field">
      <label for="roll-overlap">Old key keeps working for</label>
      <select id="roll-overlap">
        ${options(presets.overlapHours, inHours, '        ')}
      </select>
    </div>
    <div class="field">
      <label for="roll-expiry">New key expires in</label>
      <select id="roll-expiry">
      ${options(presets.expiresInDays, inDays)}
      </select>
    </div>
    <div class="actions">
      <button value="cancel">Cancel</button>
      <button value="confirm" id="roll-confirm">Roll key</button>
    </div>
  </form>
</dialog>`;

const NOT_FOUND = `<h1>Page not found</h1>
<p>There is no page here. <a href="/settings">Go to your account settings</a>.</p>`;

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll("'", '&#39;');
}

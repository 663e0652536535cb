import type { AccountComponents, AccountProblem, ApiKey, KeyEvent } from '../client/account.js';
import { account, problemMessage, publicApiUrl } from './api.js';
import { curlCommand } from './curl-command.js';
import { busy, byId, el, say, time } from './dom.js';

const EVENT_WORDS: Record<KeyEvent['type'], string> = {
  created: 'Created',
  rolled: 'Rolled',
  revoked: 'Revoked',
  expired: 'Expired',
  first_used: 'First used',
};
const SOURCE_WORDS: Record<KeyEvent['source'], string> = {
  web: 'on this site',
  cli: 'by an operator (CLI)',
  api: 'on the public API',
  system: 'when its time ran out',
};

/** The account settings page: who is signed in, the API key section, the key activity. */
export async function showSettings(): Promise<void> {
  const status = byId('status');
  const session = await account.GET('/session').catch(() => undefined);
  if (!session) {
    status.textContent = 'The server could not be reached. Reload the page to try again.';
    return;
  }
  if (!session.data) {
    location.replace('/sign-in');
    return;
  }
  byId('signed-in-as').textContent = session.data.user.name;
  byId('account').hidden = false;
  byId('api-url').textContent = publicApiUrl();
  wireSignOut(status);
  wireCreateKey();
  wireDialogs();
  wirePasswordForm(status);
  wireSessions(status);
  byId('more-events').addEventListener('click', () => void loadEvents(true));
  byId('more-keys').addEventListener('click', () => void loadKeys(true));
  await Promise.all([loadKeys(), loadEvents(false), loadSessions()]);
}

function wirePasswordForm(status: HTMLElement): void {
  const form = byId<HTMLFormElement>('password-form');
  const error = byId('password-error');
  const current = byId<HTMLInputElement>('current-password');
  const next = byId<HTMLInputElement>('new-password');
  const revokeKeys = byId<HTMLInputElement>('revoke-keys');
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (!submit) throw new Error('the form has no submit button');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = { currentPassword: current.value, newPassword: next.value, revokeKeys: revokeKeys.checked };
    void busy(submit, async () => {
      say(error, '');
      try {
        const { error: problem, response } = await account.PUT('/password', { body });
        if (response.ok) {
          form.reset();
          status.textContent = body.revokeKeys
            ? 'Your password is changed. Every other browser signed in to your account has been signed out, and every API key revoked.'
            : 'Your password is changed. Every other browser signed in to your account has been signed out. Your API keys still work.';
          await Promise.all(body.revokeKeys ? [loadSessions(), loadKeys(), loadEvents(false)] : [loadSessions()]);
          return;
        }
        if (response.status === 401) {
          // A wrong current password, or this session has ended: the session says which.
          const { response: session } = await account.GET('/session');
          if (session.status === 401) {
            location.assign('/sign-in');
            return;
          }
          say(error, 'The current password is wrong.');
          current.focus();
          return;
        }
        say(error, passwordMessage(problem));
        (problem?.errors?.some((violation) => violation.pointer === '/newPassword') ? next : current).focus();
      } catch {
        say(error, 'The server could not be reached. Check your connection and try again.');
      }
    });
  });
}

/** A refused password change in words: each violation names its field ("The new password is ..."), else the detail. */
function passwordMessage(problem: AccountProblem | undefined): string {
  const fields: Record<string, string> = { '/newPassword': 'The new password', '/currentPassword': 'The current password' };
  const violations = problem?.errors ?? [];
  if (problem?.type === 'urn:problem-type:validation-failed' && violations.length > 0) {
    return violations.map((violation) => `${fields[violation.pointer] ?? 'The request'} ${violation.detail}.`).join(' ');
  }
  return problemMessage(problem, 'The password could not be changed. Try again.');
}

async function loadSessions(): Promise<void> {
  const result = await guarded(() => account.GET('/sessions'));
  if (!result?.data) return;
  byId('session-list').replaceChildren(...result.data.sessions.map(sessionItem));
}

function sessionItem(session: ActiveSession): HTMLLIElement {
  const started = time(session.createdAt);
  const details = el(
    'dl',
    {},
    el('dt', {}, 'Signed in'),
    el('dd', {}, started),
    el('dt', {}, 'Last active'),
    el('dd', {}, time(session.lastSeenAt)),
    el('dt', {}, 'Ends'),
    el('dd', {}, time(session.idleExpiresAt), ' if unused, ', time(session.expiresAt), ' at the latest'),
  );
  const heading = el('h3', {}, session.current ? 'This browser' : 'Another browser');
  const item = el('li', { class: 'key card', 'data-session-id': session.id }, heading, details);
  if (!session.current) {
    const label = `End the session signed in ${started.textContent ?? session.createdAt}`;
    item.append(el('div', { class: 'actions' }, el('button', { type: 'button', class: 'danger', 'data-session-id': session.id, 'aria-label': label }, 'End')));
  }
  return item;
}

function wireSessions(status: HTMLElement): void {
  byId('session-list').addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-session-id]');
    const sessionId = button?.dataset['sessionId'];
    if (!button || !sessionId) return;
    void busy(button, async () => {
      const result = await guarded(() => account.DELETE('/sessions/{sessionId}', { params: { path: { sessionId } } }));
      if (!result) return;
      // A 404: it had ended already; either way it is gone from the list.
      status.textContent =
        result.response.ok || result.response.status === 404
          ? 'The session has ended.'
          : problemMessage(result.error, 'The session could not be ended. Try again.');
      await loadSessions();
      byId('sessions-heading').focus();
    });
  });
}

function wireSignOut(status: HTMLElement): void {
  const button = byId<HTMLButtonElement>('sign-out');
  button.addEventListener('click', () => {
    void busy(button, async () => {
      const { error, response } = await account.DELETE('/session');
      if (error && response.status !== 401) {
        status.textContent = problemMessage(error, 'Signing out failed. Try again.');
        return;
      }
      location.assign('/sign-in');
    });
  });
}

function wireCreateKey(): void {
  const form = byId<HTMLFormElement>('create-key-form');
  const error = byId('create-error');
  const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (!submit) throw new Error('the form has no submit button');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = byId<HTMLInputElement>('key-name').value.trim();
    const expiresInDays = Number(byId<HTMLSelectElement>('key-expiry').value) as ApiKeyExpiry;
    void busy(submit, async () => {
      say(error, '');
      const result = await guarded(() => account.POST('/keys', { body: { name, expiresInDays } }));
      if (!result?.data) {
        say(error, problemMessage(result?.error, 'The key could not be generated. Try again.'));
        return;
      }
      form.reset();
      showNewKey(result.data.key, result.data.secret);
      await Promise.all([loadKeys(), loadEvents(false)]);
    });
  });
  byId('new-key-done').addEventListener('click', () => {
    // The secret leaves the page once the user says it is stored.
    byId<HTMLInputElement>('new-key-secret').value = '';
    byId<HTMLTextAreaElement>('new-key-curl').value = '';
    byId('new-key').hidden = true;
    byId('key-name').focus();
  });
  byId('copy-key').addEventListener('click', () => void copy(byId<HTMLInputElement>('new-key-secret'), 'The key is copied.'));
  byId('copy-curl').addEventListener('click', () => void copy(byId<HTMLTextAreaElement>('new-key-curl'), 'The command is copied.'));
}

type ApiKeyExpiry = AccountComponents['schemas']['ExpiresInDays'];
type ActiveSession = AccountComponents['schemas']['ActiveSession'];
type Overlap = AccountComponents['schemas']['OverlapHours'];

/**
 * The show-once panel: the secret, a copy button and a curl that works as printed. The curl holds no
 * key: it asks for it (`curlCommand`), so the key stays out of the shell's history and the process list.
 */
function showNewKey(key: ApiKey, secret: string): void {
  byId('new-key-name').textContent = `“${key.name}”`;
  byId<HTMLInputElement>('new-key-secret').value = secret;
  byId<HTMLTextAreaElement>('new-key-curl').value = curlCommand(publicApiUrl());
  byId('copy-status').textContent = '';
  byId('new-key').hidden = false;
  byId('new-key-heading').focus();
}

async function copy(field: HTMLInputElement | HTMLTextAreaElement, done: string): Promise<void> {
  const status = byId('copy-status');
  try {
    await navigator.clipboard.writeText(field.value);
    status.textContent = done;
  } catch {
    field.select();
    status.textContent = 'Copying was blocked; the text is selected: press Ctrl+C (⌘C on a Mac).';
  }
}

/**
 * The cursors one list has followed since its first page. A cursor the API sends a second time would
 * make **Show older** fetch the same page forever (the static mock answers every page with the same
 * example), so the list ends there, as `paginate` does in the client.
 */
function cursorTrail() {
  const seen = new Set<string>();
  return {
    reset: () => seen.clear(),
    /** Whether this cursor was followed before: the page that offers it again is one already shown. */
    repeats: (cursor: string | null) => cursor !== null && seen.has(cursor),
    /** The cursor to offer next: `null` at the end of the list, or when this one was followed before. */
    follow(cursor: string | null): string | null {
      if (cursor === null || seen.has(cursor)) return null;
      seen.add(cursor);
      return cursor;
    },
  };
}

let keysById = new Map<string, ApiKey>();
let keyCursor: string | null = null;
const keyTrail = cursorTrail();
/** Pages fetched at most for one load: 100 keys each, far more active keys than anyone has. */
const KEY_PAGES = 50;

/**
 * The key list. The API lists every active key before any revoked or expired one, so the first load goes
 * on page after page while a page ends with an active key: every key that works is always shown. Older
 * keys follow one page at a time (`more`, **Show older keys**).
 */
async function loadKeys(more = false): Promise<void> {
  const keys = more ? [...keysById.values()] : [];
  let cursor = more ? keyCursor : null;
  if (!more) keyTrail.reset();
  for (let page = 0; page < KEY_PAGES; page++) {
    const query = cursor ? { cursor } : {};
    const result = await guarded(() => account.GET('/keys', { params: { query } }));
    if (!result?.data) return;
    keys.push(...result.data.keys);
    cursor = keyTrail.follow(result.data.nextCursor);
    if (more || cursor === null || result.data.keys.at(-1)?.status !== 'active') break;
  }
  keysById = new Map(keys.map((key) => [key.id, key]));
  keyCursor = cursor;
  byId('key-list').replaceChildren(...keys.map(keyItem));
  byId('keys-empty').hidden = keys.length > 0;
  byId('more-keys').hidden = keyCursor === null;
}

function keyItem(key: ApiKey): HTMLLIElement {
  const state =
    key.status === 'active' && key.rolledAt !== null && key.expiresAt !== null
      ? ['Rolled: works until ', time(key.expiresAt)]
      : [key.status === 'active' ? 'Active' : key.status === 'expired' ? 'Expired' : 'Revoked'];
  const details = el(
    'dl',
    {},
    el('dt', {}, 'Key'),
    el('dd', {}, el('code', {}, key.hint)),
    el('dt', {}, 'Status'),
    el('dd', { class: `state state-${key.status}` }, ...state),
    el('dt', {}, 'Created'),
    el('dd', {}, time(key.createdAt)),
    el('dt', {}, 'Last used'),
    el('dd', {}, key.lastUsedAt ? time(key.lastUsedAt) : 'Never'),
    el('dt', {}, key.status === 'expired' ? 'Expired' : 'Expires'),
    el('dd', {}, key.expiresAt ? time(key.expiresAt) : 'Never'),
  );
  const actions = el('div', { class: 'actions' });
  if (key.status === 'active' && key.rolledAt === null) {
    actions.append(el('button', { type: 'button', 'data-action': 'roll', 'data-key-id': key.id, 'aria-label': `Roll ${key.name} (${key.hint})` }, 'Roll'));
  }
  if (key.status === 'active') {
    actions.append(
      el(
        'button',
        { type: 'button', class: 'danger', 'data-action': 'revoke', 'data-key-id': key.id, 'aria-label': `Revoke ${key.name} (${key.hint})` },
        'Revoke',
      ),
    );
  } else {
    // A key that no longer works can leave the list; its activity stays below.
    actions.append(
      el(
        'button',
        { type: 'button', 'data-action': 'remove', 'data-key-id': key.id, 'aria-label': `Remove ${key.name} (${key.hint}) from the list` },
        'Remove from list',
      ),
    );
  }
  return el('li', { class: 'key card', 'data-key-id': key.id }, el('h4', {}, key.name), details, actions);
}

function wireDialogs(): void {
  const revoke = byId<HTMLDialogElement>('revoke-dialog');
  const roll = byId<HTMLDialogElement>('roll-dialog');
  let target: ApiKey | undefined;
  let opener: HTMLElement | undefined;
  byId('key-list').addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-action]');
    const key = button?.dataset['keyId'] ? keysById.get(button.dataset['keyId']) : undefined;
    if (!button || !key) return;
    if (button.dataset['action'] === 'remove') {
      void removeKey(key, button);
      return;
    }
    target = key;
    opener = button;
    const dialog = button.dataset['action'] === 'revoke' ? revoke : roll;
    byId(`${dialog === revoke ? 'revoke' : 'roll'}-name`).textContent = `“${key.name}”`;
    byId(`${dialog === revoke ? 'revoke' : 'roll'}-hint`).textContent = key.hint;
    dialog.returnValue = '';
    dialog.showModal();
  });
  const status = byId('status');
  revoke.addEventListener('close', () => {
    const key = target;
    if (revoke.returnValue !== 'confirm' || !key) return opener?.focus();
    void (async () => {
      const result = await guarded(() => account.POST('/keys/{keyId}/revoke', { params: { path: { keyId: key.id } } }));
      status.textContent = result?.data
        ? `Revoked “${key.name}”. It no longer works.`
        : problemMessage(result?.error, 'The key could not be revoked. Try again.');
      await Promise.all([loadKeys(), loadEvents(false)]);
      byId('keys-heading').focus();
    })();
  });
  roll.addEventListener('close', () => {
    const key = target;
    if (roll.returnValue !== 'confirm' || !key) return opener?.focus();
    const overlapHours = Number(byId<HTMLSelectElement>('roll-overlap').value) as Overlap;
    const expiresInDays = Number(byId<HTMLSelectElement>('roll-expiry').value) as ApiKeyExpiry;
    void (async () => {
      const result = await guarded(() => account.POST('/keys/{keyId}/roll', { params: { path: { keyId: key.id } }, body: { overlapHours, expiresInDays } }));
      if (result?.data) {
        status.textContent = `Rolled “${key.name}”.`;
        showNewKey(result.data.key, result.data.secret);
      } else {
        status.textContent = problemMessage(result?.error, 'The key could not be rolled. Try again.');
      }
      await Promise.all([loadKeys(), loadEvents(false)]);
    })();
  });
}

/** Takes a revoked or expired key off the list; no confirmation, as the key works no more either way. */
async function removeKey(key: ApiKey, button: HTMLButtonElement): Promise<void> {
  const status = byId('status');
  await busy(button, async () => {
    const result = await guarded(() => account.DELETE('/keys/{keyId}', { params: { path: { keyId: key.id } } }));
    if (!result) return;
    status.textContent =
      result.response.status === 204 || result.response.status === 404
        ? `Removed “${key.name}” from the list. Its activity stays below.`
        : problemMessage(result.error, 'The key could not be removed. Try again.');
    await loadKeys();
    byId('keys-heading').focus();
  });
}

let eventCursor: string | null = null;
const eventTrail = cursorTrail();

async function loadEvents(more: boolean): Promise<void> {
  const query = more && eventCursor ? { limit: 20, cursor: eventCursor } : { limit: 20 };
  const result = await guarded(() => account.GET('/key-events', { params: { query } }));
  if (!result?.data) return;
  const list = byId('event-list');
  const items = result.data.events.map((event) =>
    el(
      'li',
      {},
      time(event.at),
      ' ',
      el('strong', {}, EVENT_WORDS[event.type]),
      ` “${event.keyName}” (`,
      el('code', {}, event.keyHint),
      `) ${SOURCE_WORDS[event.source]}`,
    ),
  );
  if (!more) eventTrail.reset();
  // A page that offers a cursor followed before is one already shown: the list ends without it.
  const repeated = eventTrail.repeats(result.data.nextCursor);
  if (!more) list.replaceChildren(...items);
  else if (!repeated) list.append(...items);
  eventCursor = eventTrail.follow(result.data.nextCursor);
  byId('more-events').hidden = eventCursor === null;
  byId('events-empty').hidden = list.childElementCount > 0;
}

/**
 * Runs a call; a session that ended meanwhile sends the user to sign in, and a
 * network failure is said in the status line. Answers `undefined` then.
 */
async function guarded<T extends { response: Response }>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    const result = await call();
    if (result.response.status === 401) {
      location.assign('/sign-in');
      return undefined;
    }
    return result;
  } catch {
    byId('status').textContent = 'The server could not be reached. Check your connection and try again.';
    return undefined;
  }
}

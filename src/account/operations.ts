import type { AccountOperations, ActiveSessionView, ApiKeyView, KeyEventView } from '../contract/account-types.js';
import type { AccountLimits } from '../contract/limits.js';
import type { HandlerMap } from '../http/bind-operations.js';
import { ApiError } from '../http/problems.js';
import { InputViolation } from '../http/read-input.js';
import { generateApiKey } from '../keys/api-key.js';
import {
  ActiveKeyLimitReached,
  CredentialChanged,
  type KeyEvent,
  type KeySummary,
  type SessionRecord,
  type Store,
  type UserCredential,
} from '../store/store.js';
import { decodeEventCursor, decodeKeyCursor, encodeEventCursor, encodeKeyCursor, type KeyListPosition } from './cursors.js';
import { type DeviceRequest, deviceOfAccount, type KnownDevice } from './devices.js';
import { contextWords, normalizePassword, type PasswordStrength, passwordProblem } from './password-rule.js';
import { checkAndHashNewPassword, type HashLane, hashPassword, type PasswordCheck, verifyPassword } from './passwords.js';
import type { Sessions } from './sessions.js';
import { type AttemptLimit, releaseAll, takeAll } from './sign-in-limiter.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The list shows this many sessions at most: a copy of the spec's `SessionList.sessions.maxItems`, held to it by `test/account/spec.test.ts`. */
export const LISTED_SESSIONS = 100;

/** What every handler of the account API works with, besides its input. */
export interface AccountContext {
  store: Store;
  sessions: Sessions;
  /** The signed-in session; present for every operation under `sessionCookie`. */
  session: SessionRecord | undefined;
  /** The caller's address, for the sign-in limits. */
  client: string;
  /** The request's device cookie: the browser's account, if it signed in before, and a new one to set. */
  device: DeviceRequest;
  /** Sign-in attempts, taken before the password is checked. */
  signInAttempts: { perAccount: AttemptLimit; perClient: AttemptLimit; perDevice: AttemptLimit };
  /**
   * Sign-ins that succeed, per account name and per client, from any browser (`x-limits.signIn.successesPer…`): a
   * rate, taken after the failure counts and before the hash, given back when the password is wrong.
   */
  signInSuccesses: { perAccount: AttemptLimit; perClient: AttemptLimit };
  /** Sign-ups per client, taken before the name is looked up. */
  signUpAttempts: AttemptLimit;
  limits: AccountLimits;
  /** The request's time, in milliseconds since the epoch. */
  now: number;
}

/** Typed from `generated/account.d.ts`: every operationId of the account spec needs an entry. */
export type AccountHandlers = HandlerMap<AccountOperations, AccountContext>;

export const accountHandlers: AccountHandlers = {
  async signUp({ body }, context) {
    const { store, sessions, client, signUpAttempts, limits, now } = context;
    // A client past its sign-ups is refused before anything is hashed: a flood of them costs no work on the hashing
    // thread, where a legitimate sign-up waits in the same line (the count is taken below; this only looks).
    const waiting = await signUpAttempts.wait(client);
    if (waiting > 0) throw tooManySignUps(waiting, limits.signUp.perClient);
    // The password rule first: its 422 says nothing of the name, and costs no attempt. The hash is made in the same
    // turn of the hashing line (one wait, not two, behind whatever else is in line).
    const password = normalizePassword(body.password);
    const rule = (strength: PasswordStrength) => passwordProblem(strength, limits.password.minGuessesLog10);
    const checked = await checkAndHashNewPassword(password, contextWords(body.name), (strength) => rule(strength) === undefined, 'sign-up', client);
    const problem = rule(checked.strength);
    if (problem || checked.hash === undefined) throw new InputViolation('/password', problem ?? 'could not be checked');
    const passwordHash = checked.hash;
    // Taken before the name is looked up: a sign-up that meets a taken name counts as one that makes an account,
    // so "this name is taken" costs what an account costs.
    const wait = await signUpAttempts.take(client);
    if (wait > 0) throw tooManySignUps(wait, limits.signUp.perClient);
    let user: Awaited<ReturnType<Store['createUser']>>;
    try {
      if (await store.findUserByName(body.name)) throw nameTaken();
      try {
        user = await store.createUser(body.name, iso(now), passwordHash);
      } catch (error) {
        // Two sign-ups for one name at once: the second meets the UNIQUE constraint.
        if (await store.findUserByName(body.name)) throw nameTaken();
        throw error;
      }
    } catch (error) {
      // Anything but a taken name (the hashing queue full, the database away) was not a sign-up: its attempt is given back.
      if (!(error instanceof ApiError && error.status === 409)) await signUpAttempts.release(client);
      throw error;
    }
    const { session, setCookie } = await sessions.start(user.id, now);
    // The browser that made the account is one it knows (a new account is at credential version 0).
    await context.device.issue(user.id, 0);
    return { status: 201, body: { user: session.user, ...sessions.view(session) }, headers: { 'set-cookie': setCookie } };
  },

  async signIn({ body }, context) {
    const { store, sessions, device, client, signInSuccesses, now } = context;
    const found = await store.findUserCredential(body.name);
    const { credential, check } = await checkPasswordAttempt(context, found, {
      userId: found?.user.id,
      name: body.name,
      password: body.password,
      wrong: 'The user name or password is wrong.',
      // Right passwords are limited too, to a rate: signing in to one's own account again and again is no way to hold the hashing thread.
      successes: [
        [signInSuccesses.perAccount, body.name.toLowerCase()],
        [signInSuccesses.perClient, client],
      ],
    });
    // A hash made before passwords were normalized is made again from the normalized form, when the thread has a turn.
    if (check === 'match-as-typed') await rehash(store, credential, body.password);
    // A new session on every sign-in (never a fixed one); a session the browser still had ends.
    if (context.session) await sessions.end(context.session);
    await sessions.sweep(now);
    let started: Awaited<ReturnType<Sessions['start']>>;
    try {
      // Only under the credential version read with the hash just checked: a password changed since makes no session.
      started = await sessions.start(credential.user.id, now, credential.credentialVersion);
    } catch (error) {
      if (!(error instanceof CredentialChanged)) throw error;
      throw new ApiError('urn:problem-type:unauthorized', 'The user name or password is wrong.', {
        headers: { 'WWW-Authenticate': sessions.challenge },
        reason: 'credential-changed',
      });
    }
    const { session, setCookie } = started;
    await device.issue(credential.user.id, credential.credentialVersion);
    return { status: 200, body: { user: session.user, ...sessions.view(session) }, headers: { 'set-cookie': setCookie } };
  },

  async getSession(_input, context) {
    const session = signedIn(context);
    return { status: 200, body: { user: session.user, ...context.sessions.view(session) } };
  },

  async signOut(_input, context) {
    const setCookie = await context.sessions.end(signedIn(context));
    return { status: 204, headers: { 'set-cookie': setCookie } };
  },

  async changePassword({ body }, context) {
    const { store, limits, now } = context;
    const session = signedIn(context);
    const { user } = session;
    // The rule first, as at sign-up: a refused new password costs no attempt and says nothing of the current one.
    const password = normalizePassword(body.newPassword);
    // Every hash of a change waits in its own line, and the new hash is made in the strength check's turn: a storm of
    // sign-ins never keeps a change waiting long.
    const rule = (strength: PasswordStrength) => passwordProblem(strength, limits.password.minGuessesLog10);
    const checked = await checkAndHashNewPassword(
      password,
      contextWords(user.name),
      (strength) => rule(strength) === undefined,
      'password-change',
      `user ${user.id}`,
    );
    const problem = rule(checked.strength);
    if (problem || checked.hash === undefined) throw new InputViolation('/newPassword', problem ?? 'could not be checked');
    const passwordHash = checked.hash;
    // The current password is checked as a sign-in checks it, under the same counts: a stolen session is no free
    // oracle for the password.
    await checkPasswordAttempt(context, await store.findUserCredential(user.name), {
      userId: user.id,
      name: user.name,
      password: body.currentPassword,
      tooMany: 'wrong passwords',
      wrong: 'The current password is wrong.',
      lane: 'password-change',
    });
    if (normalizePassword(body.currentPassword) === password) throw new InputViolation('/newPassword', 'is your current password; choose a new one');
    // One transaction: the hash, the credential version bumped (every session and device cookie made under the old one
    // ends, on every instance, and a sign-in that checked the old password makes none), every other session ended and
    // this one kept, and the keys revoked when asked. Whoever else held a session (a stolen cookie, a forgotten browser)
    // is signed out.
    const { credentialVersion } = await store.changePassword({
      userId: user.id,
      passwordHash,
      keepSessionId: session.id,
      ...(body.revokeKeys === true && { revokeKeys: { at: iso(now), source: 'web' as const } }),
    });
    // This browser's device cookie was made under the old version: it gets one under the new.
    return { status: 204, headers: { 'set-cookie': await context.device.make(user.id, credentialVersion) } };
  },

  async listSessions(_input, context) {
    const { sessions, now } = context;
    const current = signedIn(context);
    const others = (await sessions.live(current.user.id, now, LISTED_SESSIONS)).filter((session) => session.id !== current.id);
    const listed = [current, ...others].slice(0, LISTED_SESSIONS);
    return { status: 200, body: { sessions: listed.map((session) => toActiveSession(session, current, sessions)) } };
  },

  async endSession({ path }, context) {
    const { store, sessions } = context;
    const current = signedIn(context);
    // Ending this very session is signing out: the answer clears its cookie too.
    if (path.sessionId === current.id) return { status: 204, headers: { 'set-cookie': await sessions.end(current) } };
    // Only the user's own: another user's session id is answered as an unknown one.
    if (!(await store.deleteUserSession(current.user.id, path.sessionId)))
      throw new ApiError('urn:problem-type:not-found', 'You have no session with this id.');
    return { status: 204 };
  },

  async listKeys({ query }, context) {
    const { store, now } = context;
    const { user } = signedIn(context);
    const limit = query.limit ?? 100;
    let after: KeyListPosition | undefined;
    if (query.cursor !== undefined) {
      after = decodeKeyCursor(query.cursor, query);
      if (!after) throw new InputViolation('/cursor', 'is not a cursor of this list; take it from nextCursor');
    }
    // Which keys count as active is fixed by the first page, so a key that expires while the caller pages
    // keeps its place: none is skipped, none comes twice.
    const asOf = after?.asOf ?? iso(now);
    await store.recordExpiries(user.id, iso(now));
    const rows = await store.listKeyPage(user.id, { asOf, limit: limit + 1, ...(after && { after }) });
    const keys = rows.slice(0, limit);
    const last = keys.at(-1);
    const nextCursor =
      rows.length > limit && last
        ? encodeKeyCursor({ asOf, active: statusOf(last, Date.parse(asOf)) === 'active', createdAt: last.createdAt, id: last.id }, query)
        : null;
    return { status: 200, body: { keys: keys.map((key) => toApiKey(key, now)), nextCursor } };
  },

  async createKey({ body }, context) {
    const { store, limits, now } = context;
    const { user } = signedIn(context);
    const { key, digest, hint } = generateApiKey();
    const expiresAt = iso(now + (body.expiresInDays ?? 30) * DAY_MS);
    let created: KeySummary;
    try {
      // The store counts and inserts in one step, so requests at once, on any instance, cannot pass the cap.
      created = await store.createKey(user.id, digest, hint, iso(now), { name: body.name, expiresAt, source: 'web', maxActive: limits.keys.activePerUser });
    } catch (error) {
      if (!(error instanceof ActiveKeyLimitReached)) throw error;
      throw new ApiError('urn:problem-type:conflict', `You have ${error.active} active API keys, the most allowed. Revoke one you no longer use first.`);
    }
    return { status: 201, body: { key: toApiKey(created, now), secret: key }, headers: { 'cache-control': 'no-store' } };
  },

  async removeKey({ path }, context) {
    const { store, now } = context;
    const { user } = signedIn(context);
    const outcome = await store.removeKey(user.id, path.keyId, iso(now));
    if (outcome === undefined) throw new ApiError('urn:problem-type:not-found', 'You have no API key with this id.');
    if (outcome === 'active') throw new ApiError('urn:problem-type:conflict', 'This key is active; revoke it before removing it from the list.');
    return { status: 204 };
  },

  async revokeKey({ path }, context) {
    const { store, now } = context;
    const { user } = signedIn(context);
    const key = await ownKey(store, user.id, path.keyId);
    if (key.revokedAt === null) await store.revokeKey(key.id, iso(now), { userId: user.id, source: 'web' });
    return { status: 200, body: toApiKey(await ownKey(store, user.id, key.id), now) };
  },

  async rollKey({ path, body }, context) {
    const { store, now } = context;
    const { user } = signedIn(context);
    const key = await ownKey(store, user.id, path.keyId);
    if (key.rolledAt !== null) throw new ApiError('urn:problem-type:conflict', 'This key was rolled already; roll its replacement instead.');
    const status = statusOf(key, now);
    if (status !== 'active') throw new ApiError('urn:problem-type:conflict', `This key is ${status}; only an active key can be rolled.`);
    const next = generateApiKey();
    const rolled = await store.rollKey({
      userId: user.id,
      keyId: key.id,
      at: iso(now),
      previousExpiresAt: iso(now + (body.overlapHours ?? 24) * HOUR_MS),
      next: { digest: next.digest, hint: next.hint, expiresAt: iso(now + (body.expiresInDays ?? 30) * DAY_MS) },
      source: 'web',
    });
    if (!rolled) throw new ApiError('urn:problem-type:conflict', 'This key changed while it was being rolled; reload and try again.');
    return {
      status: 201,
      body: { key: toApiKey(rolled.next, now), secret: next.key, previous: toApiKey(rolled.previous, now) },
      headers: { 'cache-control': 'no-store' },
    };
  },

  async listKeyEvents({ query }, context) {
    const { store, now } = context;
    const { user } = signedIn(context);
    const limit = query.limit ?? 50;
    let before: { at: string; id: string } | undefined;
    if (query.cursor !== undefined) {
      before = decodeEventCursor(query.cursor, query);
      if (!before) throw new InputViolation('/cursor', 'is not a cursor of this list; take it from nextCursor');
    }
    await store.recordExpiries(user.id, iso(now));
    const rows = await store.listKeyEvents(user.id, { limit: limit + 1, ...(before && { before }) });
    const events = rows.slice(0, limit);
    const last = events.at(-1);
    return { status: 200, body: { events: events.map(toKeyEvent), nextCursor: rows.length > limit && last ? encodeEventCursor(last, query) : null } };
  },
};

/** The session `prepare` found; every operation under `sessionCookie` has one. */
function signedIn(context: AccountContext): SessionRecord {
  if (!context.session) throw new Error('an operation under sessionCookie ran without a session; prepare must refuse it first');
  return context.session;
}

type SignInAttempts = AccountContext['signInAttempts'];

/**
 * The counts a password check is taken from, as sign-in takes them: a browser holding the device cookie of the
 * account is counted on its own (others' guesses never hold it back), any other per account name and per client.
 * `known` is that device, when it is one.
 */
function passwordAttempts(
  limits: SignInAttempts,
  device: KnownDevice | undefined,
  userId: string | undefined,
  name: string,
  client: string,
): { attempts: ReadonlyArray<readonly [AttemptLimit, string]>; known: KnownDevice | undefined } {
  if (device !== undefined && device.userId === userId) return { attempts: [[limits.perDevice, device.nonce]], known: device };
  return {
    attempts: [
      [limits.perAccount, name.toLowerCase()],
      [limits.perClient, client],
    ],
    known: undefined,
  };
}

/**
 * A password checked under the sign-in counts (sign-in, and the current password of a change): an attempt is taken
 * before the hash is checked, in one statement each, so guesses sent at once count one by one; given back when the
 * hashing queue could not check it; after the right password, a device's count is cleared or the others' attempt
 * given back. Throws the 429 while the counts allow none, the 401 (`wrong`) for a wrong password or an unknown name.
 */
async function checkPasswordAttempt(
  context: AccountContext,
  credential: UserCredential | undefined,
  attempt: {
    userId: string | undefined;
    name: string;
    password: string;
    tooMany?: string;
    wrong: string;
    /** Counts of right passwords (a rate), taken after the failure counts allow the attempt, given back unless it signs in. */
    successes?: ReadonlyArray<readonly [AttemptLimit, string]>;
    /** The hashing queue's line; `sign-in` by default. */
    lane?: HashLane;
  },
): Promise<{ credential: UserCredential; check: Exclude<PasswordCheck, 'no-match'> }> {
  const { signInAttempts, client, sessions } = context;
  // A device cookie made before the latest password change is no longer the account's browser.
  const device = deviceOfAccount(await context.device.find(), credential && { userId: credential.user.id, credentialVersion: credential.credentialVersion });
  const { attempts, known } = passwordAttempts(signInAttempts, device, attempt.userId, attempt.name, client);
  const wait = await takeAll(attempts);
  if (wait > 0) throw tooManySignIns(wait, known !== undefined, attempt.tooMany);
  const successes = attempt.successes ?? [];
  const successWait = await takeAll(successes);
  if (successWait > 0) {
    await releaseAll(attempts);
    throw tooManySuccessfulSignIns(successWait);
  }
  let check: PasswordCheck;
  try {
    check = await verifyPassword(
      credential?.passwordHash,
      attempt.password,
      attempt.lane,
      attempt.lane === 'password-change' ? `user ${attempt.userId}` : client,
    );
  } catch (error) {
    // Not checked (the hashing queue is full): the attempts are given back.
    await releaseAll([...attempts, ...successes]);
    throw error;
  }
  if (check === 'no-match' || !credential) {
    await releaseAll(successes);
    throw new ApiError('urn:problem-type:unauthorized', attempt.wrong, { headers: { 'WWW-Authenticate': sessions.challenge }, reason: 'wrong-password' });
  }
  await giveBack(signInAttempts, attempts, known);
  return { credential, check };
}

/** After the right password: a device's count is cleared (its own wrong ones are forgiven), the others' attempt given back. */
async function giveBack(limits: SignInAttempts, attempts: ReadonlyArray<readonly [AttemptLimit, string]>, known: KnownDevice | undefined): Promise<void> {
  if (known) await limits.perDevice.clear(known.nonce);
  else await releaseAll(attempts);
}

function toActiveSession(session: SessionRecord, current: SessionRecord, sessions: Sessions): ActiveSessionView {
  return {
    id: session.id,
    createdAt: session.createdAt,
    lastSeenAt: session.lastSeenAt,
    ...sessions.view(session),
    current: session.id === current.id,
  };
}

/** A key of this user, or `404` whether it is another user's or does not exist: the answer does not tell. */
async function ownKey(store: Store, userId: string, keyId: string): Promise<KeySummary> {
  const key = await store.findKey(userId, keyId);
  if (!key) throw new ApiError('urn:problem-type:not-found', 'You have no API key with this id.');
  return key;
}

function statusOf(key: KeySummary, now: number): ApiKeyView['status'] {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

/** The declared return type makes TypeScript name a field the spec's `ApiKey` lacks or misses. */
function toApiKey(key: KeySummary, now: number): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    hint: key.hint,
    status: statusOf(key, now),
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    rolledAt: key.rolledAt,
    replacedBy: key.replacedBy,
  };
}

function toKeyEvent(event: KeyEvent): KeyEventView {
  return { id: event.id, type: event.type, at: event.at, source: event.source, keyId: event.keyId, keyName: event.keyName, keyHint: event.keyHint };
}

/**
 * The 429 of a sign-in whose count allows no attempt now, saying how long to wait in minutes (the page shows it;
 * `Retry-After` has the seconds). It reads the same for an unknown name as for a real one.
 */
function tooManySignIns(waitSeconds: number, trusted: boolean, what = 'failed sign-ins'): ApiError {
  const minutes = Math.ceil(waitSeconds / 60);
  const wait = `Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
  const detail = trusted
    ? `Too many ${what} from this browser. ${wait}`
    : `Too many ${what} for this account from browsers it does not know, or from this address. ${wait} A browser that signed in to this account before is not held back.`;
  return new ApiError('urn:problem-type:too-many-sign-in-attempts', detail, { headers: { 'Retry-After': String(waitSeconds) }, reason: 'sign-in-limit' });
}

/**
 * Stores a hash of the normalized password in place of one made from the password as typed; skipped when the hashing
 * thread is busy (the next sign-in tries again), and when the password changed meanwhile (the old one is not put back).
 */
async function rehash(store: Store, credential: UserCredential, password: string): Promise<void> {
  let hash: string;
  try {
    hash = await hashPassword(normalizePassword(password), 'sign-in');
  } catch (error) {
    if (error instanceof ApiError) return;
    throw error;
  }
  await store.setPasswordHash(credential.user.id, hash, credential.credentialVersion);
}

/** The 429 of a sign-in past the rate of sign-ins that succeed (per account or per client), saying the wait in seconds. */
function tooManySuccessfulSignIns(waitSeconds: number): ApiError {
  return new ApiError(
    'urn:problem-type:rate-limited',
    `Too many sign-ins to this account, or from this address, in a short time. Try again in ${waitSeconds} ${waitSeconds === 1 ? 'second' : 'seconds'}.`,
    { headers: { 'Retry-After': String(waitSeconds) }, reason: 'sign-in-rate' },
  );
}

/** The 429 of a sign-up from a client whose count allows none now, saying how long to wait in minutes. */
function tooManySignUps(waitSeconds: number, perClient: number): ApiError {
  const minutes = Math.ceil(waitSeconds / 60);
  return new ApiError(
    'urn:problem-type:rate-limited',
    `This address has signed up or tried a taken name ${perClient} times. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
    { headers: { 'Retry-After': String(waitSeconds) }, reason: 'sign-up-limit' },
  );
}

function nameTaken(): ApiError {
  return new ApiError('urn:problem-type:conflict', 'This user name is taken; choose another.');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

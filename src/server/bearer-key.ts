import type { ClientAddress } from '../http/client-address.js';
import type { FailureBudget } from '../http/failure-budget.js';
import type { Guard } from '../http/kernel-env.js';
import { ApiError } from '../http/problems.js';
import { digestApiKey, isWellFormedApiKey } from '../keys/api-key.js';
import type { Store } from '../store/store.js';

export interface BearerKeyOptions {
  store: Store;
  now: () => number;
  /** Requests with missing or invalid credentials, per client and in all; over it, 429 instead of 401. */
  failures: FailureBudget;
  clientAddress: ClientAddress;
}

/**
 * The `bearerAuth` scheme's middleware, shaped like Hono's own `bearerAuth({ verifyToken })`: the key in
 * `Authorization: Bearer` is checked (`authenticate`), and the caller it belongs to is set for the
 * handlers. Each refusal spends the failed-authentication budget. Over either budget, a key the cache
 * already knows is still served; nothing else is looked up or refused with 401.
 */
export function bearerKey(options: BearerKeyOptions): Guard<{ caller: Caller }> {
  const { store, now, failures, clientAddress } = options;
  return async (c, next) => {
    const address = clientAddress(c);
    try {
      const caller = await authenticate(c.req.header('authorization'), store, now(), {
        admit(digest) {
          // A key the cache knows is served whatever the budgets say; asked first, it spares the usual request the budget reads.
          if (digest && store.peekKeyByDigest?.(digest)) return;
          const spent = failures.spent(address);
          if (!spent) return;
          c.set('quota', { allowed: false, limit: spent.limit, remaining: 0, resetSeconds: spent.resetSeconds });
          const reason =
            spent.scope === 'address'
              ? `This client has sent ${spent.limit} requests with missing or invalid credentials in the current ${failures.windowSeconds}-second window.`
              : 'The service has refused too many invalid credentials in this window and now serves only keys it already knows.';
          throw new ApiError('urn:problem-type:rate-limited', `${reason} Retry in ${spent.resetSeconds} seconds.`, {
            headers: { 'Retry-After': String(spent.resetSeconds) },
          });
        },
      });
      c.set('caller', caller);
    } catch (error) {
      if (isAuthenticationFailure(error)) failures.fail(address);
      throw error;
    }
    await next();
  };
}

export interface Caller {
  userId: string;
  keyId: string;
}

export interface AuthenticateOptions {
  /**
   * Called before the header is refused or its key looked up, with the key's digest when the
   * header holds a well-formed key; throws to refuse the request another way (a 429 while the
   * client is over its failed-authentication budget).
   */
  admit?: (digest: Buffer | undefined) => void;
}

/** True for the 401 this module throws; the app counts them against the failed-authentication budgets. */
export function isAuthenticationFailure(error: unknown): boolean {
  return error instanceof ApiError && error.type === 'urn:problem-type:unauthorized';
}

const REALM = 'Bearer realm="api"';
/** Last-use times are kept to the minute, so a busy key costs one write a minute, not one per request. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Checks the `Authorization` header: format and checksum first (no lookup for a
 * made-up key), then one lookup by SHA-256 digest; a revoked or expired key
 * (a rolled key past its overlap is expired) is refused, saying which. The store's cache asks its
 * change signal on every lookup, so a key revoked from another process stops
 * working within the engine's bound (`SQLITE_CHANGE_CHECK_MS`; a notification on PostgreSQL).
 * Failures are `401` with the RFC 6750 §3 challenge; `error="invalid_token"` only
 * when a bearer token was actually presented.
 */
export async function authenticate(header: string | undefined, store: Store, now: number, options: AuthenticateOptions = {}): Promise<Caller> {
  const admit = options.admit ?? (() => undefined);
  const digest = readKey(header, admit);
  admit(digest);
  const key = await store.findKeyByDigest(digest);
  if (!key) throw invalidToken('The API key is unknown.');
  if (key.revokedAt !== null) throw invalidToken('The API key has been revoked.');
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) {
    // The owner reads why in their key events; written once per key, whoever notices first.
    await store.recordExpiries(key.userId, new Date(now).toISOString());
    throw invalidToken(
      key.rolledAt !== null
        ? `The API key was rolled; its overlap ended at ${key.expiresAt}. Use the key that replaced it.`
        : `The API key expired at ${key.expiresAt}.`,
    );
  }
  if (key.lastUsedAt === null || now - Date.parse(key.lastUsedAt) >= TOUCH_INTERVAL_MS) {
    await store.touchKey(key.id, new Date(now).toISOString());
  }
  return { userId: key.userId, keyId: key.id };
}

/** The digest of the key the header holds, or a 401 saying what is wrong with the header (after `admit` has had its say). */
function readKey(header: string | undefined, admit: (digest: undefined) => void): Buffer {
  if (header === undefined || header.trim() === '') {
    admit(undefined);
    throw unauthorized(REALM, 'Send an API key as `Authorization: Bearer <API_KEY>`.');
  }
  const match = /^(\S+)(?:[ \t]+(.*))?$/.exec(header.trim());
  if (!match || match[1]?.toLowerCase() !== 'bearer') {
    admit(undefined);
    throw unauthorized(REALM, 'Only the Bearer scheme is accepted: send `Authorization: Bearer <API_KEY>`.');
  }
  const token = match[2]?.trim() ?? '';
  if (token === '' || !isWellFormedApiKey(token)) {
    admit(undefined);
    throw invalidToken(token === '' ? 'The bearer token is empty.' : 'The bearer token is not an API key of this service.');
  }
  return digestApiKey(token);
}

function invalidToken(description: string): ApiError {
  return unauthorized(`${REALM}, error="invalid_token", error_description="${description.replaceAll('"', "'")}"`, description);
}

function unauthorized(challenge: string, detail: string): ApiError {
  return new ApiError('urn:problem-type:unauthorized', detail, { headers: { 'WWW-Authenticate': challenge } });
}

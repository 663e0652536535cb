import type { Context } from 'hono';
import { clientBudgetKey } from '../http/client-key.js';
import type { FailedAuthenticationBudget, SpentBudget } from '../http/failure-budget.js';
import { type Guard, type KernelEnv, kernelOf } from '../http/kernel-env.js';
import { ApiError } from '../http/problems.js';
import { digestApiKey, isWellFormedApiKey } from '../keys/api-key.js';
import type { KeyCredential, Store } from '../store/store.js';

export interface BearerKeyOptions {
  store: Store;
  now: () => number;
  /** Requests with missing or invalid credentials, per client (`clientBudgetKey`); over it, 429 instead of 401. */
  failures: FailedAuthenticationBudget;
  /** The prefix an IPv6 client is counted by; default 64. */
  ipv6PrefixLength?: number | undefined;
}

/**
 * The `bearerAuth` scheme's check, shaped like Hono's own `bearerAuth({ verifyToken })` middleware: the key in
 * `Authorization: Bearer` is checked (`authenticate`), and the caller it belongs to is set for the
 * handlers. A valid, unexpired, unrevoked key is always served, whatever anyone has sent: nothing here
 * refuses it before it is looked up.
 *
 * Each refusal spends the client address's failed-authentication budget. Over it, the client's requests
 * that carry no valid key get 429 instead of 401, and those already known to carry none (no well-formed
 * key, or a key the cache knows to be unknown, revoked or expired) are refused without a lookup. What a
 * flood of made-up keys costs is bounded without a budget in all: a key with a wrong checksum costs no
 * lookup, a well-formed unknown one one indexed lookup, remembered in the key cache.
 */
export function bearerKey(options: BearerKeyOptions): Guard<{ caller: Caller }> {
  const { store, now, failures } = options;
  return (c) => {
    // Counted by who the client is (an IPv6 client by its /64), never by what a made-up key says (client-key.ts).
    const address = clientBudgetKey(kernelOf(c).get('client'), options.ipv6PrefixLength);
    const at = now();
    // Read before the key is checked: the answer to a key that turns out invalid depends on what came before it.
    const spent = failures.spent(address);
    const accept = (caller: Caller): void => {
      c.set('caller', caller);
      kernelOf(c).set('principal', { userId: caller.userId, keyId: caller.keyId });
    };
    const refuse = (error: unknown): never => {
      if (!isAuthenticationFailure(error)) throw error;
      failures.fail(address);
      throw spent ? overBudget(c, spent, failures.windowSeconds) : error;
    };
    let checked: Caller | Promise<Caller>;
    try {
      checked = checkCredential(c.req.header('authorization'), store, at, {
        connection: c.env?.incoming?.socket,
        admit(digest) {
          if (spent && !(digest && mayBeValid(store.peekKeyByDigest?.(digest), at))) throw overBudget(c, spent, failures.windowSeconds);
        },
      });
    } catch (error) {
      return refuse(error);
    }
    // A known key on a warm cache is checked with no promise: the usual request takes no microtask turn here.
    return checked instanceof Promise ? checked.then(accept, refuse) : accept(checked);
  };
}

/** Whether what the cache knows of a key leaves it possibly valid: not known at all, or known, unrevoked and unexpired. */
function mayBeValid(known: KeyCredential | null | undefined, at: number): boolean {
  if (known === undefined) return true;
  return known !== null && known.revokedAt === null && (known.expiresAt === null || Date.parse(known.expiresAt) > at);
}

function overBudget(c: Context<KernelEnv<{ caller: Caller }>>, spent: SpentBudget, windowSeconds: number): ApiError {
  kernelOf(c).set('quota', { allowed: false, limit: spent.limit, remaining: 0, resetSeconds: spent.resetSeconds });
  return new ApiError(
    'urn:problem-type:rate-limited',
    `This client has sent ${spent.limit} requests with missing or invalid credentials in the current ${windowSeconds}-second window; ` +
      `a valid key is still served. Retry in ${spent.resetSeconds} seconds.`,
    { headers: { 'Retry-After': String(spent.resetSeconds) }, reason: 'failed-authentication-budget' },
  );
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
  /**
   * The connection the request came on (Node's socket). The digest of the key it last presented is kept
   * with it, so a client that sends one key over a kept-alive connection has it parsed, checked and hashed
   * once rather than on every request: the bench measured this at about a fifth of the server's CPU per
   * answer (60 against 74 µs). It is a memo of the header, not a cache of the key: the key itself is still
   * looked up, in the one key cache, on every request (ADR 0023).
   */
  connection?: object | undefined;
}

/**
 * Per connection, the `Authorization` value last read as a well-formed key and its digest. It lives as
 * long as the connection that keeps sending it; any other value is read afresh.
 */
const lastKeyOn = new WeakMap<object, { header: string; digest: Buffer }>();

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
  return checkCredential(header, store, now, options);
}

/**
 * `authenticate`, answered at once when it can be: a refusal found without the store is thrown, and a key the
 * store's cache knows (`cachedKeyByDigest`) is judged without a promise unless its last use is due to be written.
 */
function checkCredential(header: string | undefined, store: Store, now: number, options: AuthenticateOptions): Caller | Promise<Caller> {
  const admit = options.admit ?? (() => undefined);
  const remembered = options.connection === undefined ? undefined : lastKeyOn.get(options.connection);
  const digest = remembered !== undefined && remembered.header === header ? remembered.digest : readKey(header, admit, options.connection);
  admit(digest);
  const cached = store.cachedKeyByDigest?.(digest);
  if (cached !== undefined) return judgeKey(cached ?? undefined, store, now);
  return store.findKeyByDigest(digest).then((key) => judgeKey(key, store, now));
}

/** The caller a looked-up key stands for, or the 401 saying why it is refused. */
function judgeKey(key: KeyCredential | undefined, store: Store, now: number): Caller | Promise<Caller> {
  if (!key) throw invalidToken('unknown-key', 'The API key is unknown.');
  if (key.revokedAt !== null) throw invalidToken('revoked-key', 'The API key has been revoked.');
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) {
    const refusal = invalidToken(
      key.rolledAt !== null ? 'rolled-key' : 'expired-key',
      key.rolledAt !== null
        ? `The API key was rolled; its overlap ended at ${key.expiresAt}. Use the key that replaced it.`
        : `The API key expired at ${key.expiresAt}.`,
    );
    // The owner reads why in their key events; written once per key, whoever notices first.
    return store.recordExpiries(key.userId, new Date(now).toISOString()).then(() => {
      throw refusal;
    });
  }
  const caller = { userId: key.userId, keyId: key.id };
  if (key.lastUsedAt === null || now - Date.parse(key.lastUsedAt) >= TOUCH_INTERVAL_MS) {
    return store.touchKey(key.id, new Date(now).toISOString()).then(() => caller);
  }
  return caller;
}

/** The digest of the key the header holds, or a 401 saying what is wrong with the header (after `admit` has had its say). */
function readKey(header: string | undefined, admit: (digest: undefined) => void, connection: object | undefined): Buffer {
  if (header === undefined || header.trim() === '') {
    admit(undefined);
    throw unauthorized('missing-credential', REALM, 'Send an API key as `Authorization: Bearer <API_KEY>`.');
  }
  const match = /^(\S+)(?:[ \t]+(.*))?$/.exec(header.trim());
  if (!match || match[1]?.toLowerCase() !== 'bearer') {
    admit(undefined);
    throw unauthorized('wrong-scheme', REALM, 'Only the Bearer scheme is accepted: send `Authorization: Bearer <API_KEY>`.');
  }
  const token = match[2]?.trim() ?? '';
  if (token === '' || !isWellFormedApiKey(token)) {
    admit(undefined);
    throw invalidToken('malformed-key', token === '' ? 'The bearer token is empty.' : 'The bearer token is not an API key of this service.');
  }
  const digest = digestApiKey(token);
  if (connection) lastKeyOn.set(connection, { header, digest });
  return digest;
}

/** Why a key was refused, as the metrics count it (`ApiError.reason`). */
type KeyRefusal = 'missing-credential' | 'wrong-scheme' | 'malformed-key' | 'unknown-key' | 'revoked-key' | 'expired-key' | 'rolled-key';

function invalidToken(reason: KeyRefusal, description: string): ApiError {
  return unauthorized(reason, `${REALM}, error="invalid_token", error_description="${description.replaceAll('"', "'")}"`, description);
}

function unauthorized(reason: KeyRefusal, challenge: string, detail: string): ApiError {
  return new ApiError('urn:problem-type:unauthorized', detail, { headers: { 'WWW-Authenticate': challenge }, reason });
}

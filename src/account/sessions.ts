import { createHash, hash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AccountLimits } from '../contract/limits.js';
import { ApiError } from '../http/problems.js';
import type { SessionRecord, Store } from '../store/store.js';

/** 32 random bytes, base64url: 43 characters, 256 bits. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Activity is recorded to the minute, so a busy session costs one write a minute. */
const TOUCH_INTERVAL_MS = 60_000;

/** How the session cookie is written: `__Host-session` with `Secure` over HTTPS, `session` over plain HTTP in development. */
export interface SessionCookie {
  name: '__Host-session' | 'session';
  secure: boolean;
}

export function sessionCookieFor(secure: boolean): SessionCookie {
  return secure ? { name: '__Host-session', secure } : { name: 'session', secure };
}

/**
 * What the store keeps of a token: its SHA-256 digest, or, for a session bound to the origin it was
 * started at (plain HTTP), the digest of that origin and the token, so the token is no session anywhere else.
 */
export function digestSessionToken(token: string, origin?: string): Buffer {
  return origin === undefined ? hash('sha256', token, 'buffer') : createHash('sha256').update(origin).update('\n').update(token).digest();
}

/**
 * Sessions behind a cookie: an opaque random token in the browser, only its
 * SHA-256 digest in the store, an idle and an absolute expiry.
 *
 * Over plain HTTP (local development) the cookie is a plain `session` cookie, which browsers send to
 * every port of the host and let a page on any port of it set (cookies are not isolated by port). There
 * a session is bound to the origin it was started at (`WEB_ORIGIN`, else `http://<Host>`): the store keeps
 * the digest of the origin and the token, so a token started at another origin (another port, another
 * listener on the same database, a DNS-rebound name) finds no session here. Over HTTPS the cookie is
 * `__Host-session`, sent to `WEB_ORIGIN`'s host only, and the digest is the token's alone.
 */
export class Sessions {
  readonly #store: Store;
  readonly #cookie: SessionCookie;
  readonly #limits: AccountLimits['session'];
  readonly #idleMs: number;
  readonly #absoluteMs: number;
  readonly #origin: string | undefined;
  /** The origin of the request this instance serves (`at`), over plain HTTP. */
  #bound: string | undefined;

  /** `origin` is `WEB_ORIGIN` when set; over plain HTTP without it, each request's `http://<Host>` is the origin. */
  constructor(store: Store, cookie: SessionCookie, limits: AccountLimits['session'], origin?: string) {
    this.#store = store;
    this.#cookie = cookie;
    this.#limits = limits;
    this.#idleMs = limits.idleSeconds * 1000;
    this.#absoluteMs = limits.absoluteSeconds * 1000;
    this.#origin = origin;
  }

  /** These sessions as one request sees them: `start` binds the session it starts to that request's origin. */
  at(c: Context): Sessions {
    const bound = new Sessions(this.#store, this.#cookie, this.#limits, this.#origin);
    bound.#bound = this.#originOf(c);
    return bound;
  }

  /** The origin a plain-HTTP session is bound to; undefined over HTTPS, where `__Host-` does the job. */
  #originOf(c: Context): string | undefined {
    if (this.#cookie.secure) return undefined;
    return this.#origin ?? `http://${c.req.header('host') ?? ''}`;
  }

  /** The `WWW-Authenticate` of a 401: the Cookie challenge (draft-broyer-http-cookie-auth). */
  get challenge(): string {
    return `Cookie realm="account", form-action="/sign-in", cookie-name="${this.#cookie.name}"`;
  }

  /**
   * Starts a session; returns it and the `Set-Cookie` that hands its token to the browser. With `credentialVersion`
   * (the one read with the hash a sign-in checked), only if it is still the user's: else the store's
   * `CredentialChanged`, and no session (the password changed after it was checked).
   */
  async start(userId: string, now: number, credentialVersion?: number): Promise<{ session: SessionRecord; setCookie: string }> {
    if (!this.#cookie.secure && this.#bound === undefined) throw new Error('over plain HTTP a session is bound to its origin: start it on sessions.at(c)');
    const token = randomBytes(32).toString('base64url');
    const session = await this.#store.createSession(userId, digestSessionToken(token, this.#bound), iso(now), iso(now + this.#absoluteMs), credentialVersion);
    return { session, setCookie: this.#setCookie(token, this.#absoluteMs / 1000) };
  }

  /** The session the request's cookie names, if it has not ended; ended sessions are deleted on sight. */
  async find(c: Context, now: number): Promise<SessionRecord | undefined> {
    // Over plain HTTP the contract's name (`__Host-session`, which the mock and the contract suite send) is read too.
    const token = getCookie(c, this.#cookie.name) ?? (this.#cookie.secure ? undefined : getCookie(c, '__Host-session'));
    if (token === undefined || !TOKEN.test(token)) return undefined;
    const session = await this.#store.findSessionByDigest(digestSessionToken(token, this.#originOf(c)));
    if (!session) return undefined;
    if (Date.parse(session.expiresAt) <= now || Date.parse(session.lastSeenAt) + this.#idleMs <= now) {
      await this.#store.deleteSession(session.id);
      return undefined;
    }
    if (now - Date.parse(session.lastSeenAt) < TOUCH_INTERVAL_MS) return session;
    await this.#store.touchSession(session.id, iso(now));
    return { ...session, lastSeenAt: iso(now) };
  }

  /** Like `find`, but a request without a live session is refused with `401`. */
  async require(c: Context, now: number): Promise<SessionRecord> {
    const session = await this.find(c, now);
    if (!session) {
      throw new ApiError('urn:problem-type:unauthorized', 'Sign in first; this request carries no session, or its session has ended.', {
        headers: { 'WWW-Authenticate': this.challenge },
        reason: 'no-session',
      });
    }
    return session;
  }

  async end(session: SessionRecord): Promise<string> {
    await this.#store.deleteSession(session.id);
    return this.#setCookie('', 0);
  }

  /** When the session ends: at its absolute expiry, or the idle timeout after its last recorded activity, whichever is first. */
  view(session: SessionRecord): { expiresAt: string; idleExpiresAt: string } {
    const absolute = Date.parse(session.expiresAt);
    return { expiresAt: session.expiresAt, idleExpiresAt: iso(Math.min(absolute, Date.parse(session.lastSeenAt) + this.#idleMs)) };
  }

  /** A user's live sessions (neither past their absolute expiry nor idle too long), newest first, at most `limit`. */
  live(userId: string, now: number, limit: number): Promise<SessionRecord[]> {
    return this.#store.listSessions(userId, { at: iso(now), idleBefore: iso(now - this.#idleMs), limit });
  }

  /** Drops sessions that have ended; run now and then (at sign-in) so the table follows the live sessions. */
  async sweep(now: number): Promise<void> {
    await this.#store.deleteEndedSessions(iso(now), iso(now - this.#idleMs));
  }

  #setCookie(value: string, maxAgeSeconds: number): string {
    // Attribute order is fixed so the contract's pattern can check it.
    return `${this.#cookie.name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; ${this.#cookie.secure ? 'Secure; ' : ''}SameSite=Strict`;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { SecretRing, SecretSource } from '../store/secrets.js';

/** `usr_…` id, a 128-bit nonce and an HMAC-SHA256, each base64url: `<userId>.<nonce>.<signature>`. */
const VALUE = /^(usr_[0-9a-z]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** A browser that signed in to an account before: the account, and the nonce its own attempts are counted under. */
export interface KnownDevice {
  userId: string;
  nonce: string;
  /**
   * The account's credential version when the cookie was made (`UserCredential.credentialVersion`): the cookie
   * counts as the account's device only while that is still the account's, so a password change ends every device
   * cookie made before it. 0 for a cookie made before versions were carried (they are 0 until the first change).
   */
  credentialVersion: number;
}

/**
 * The nonce's 16 bytes: 11 random, a marker, and the credential version as a 32-bit number, all under the
 * signature, so the version cannot be changed without the secret. The value's shape is unchanged, so the previous
 * release (which signs and reads the same `<userId>.<nonce>`) accepts these cookies and these accept its own,
 * which carry no marker and are read as version 0.
 */
const NONCE_RANDOM_BYTES = 11;
const VERSION_MARKER = 0x76;

function makeNonce(credentialVersion: number): string {
  const nonce = Buffer.alloc(16);
  randomBytes(NONCE_RANDOM_BYTES).copy(nonce);
  nonce[NONCE_RANDOM_BYTES] = VERSION_MARKER;
  nonce.writeUInt32BE(credentialVersion >>> 0, NONCE_RANDOM_BYTES + 1);
  return nonce.toString('base64url');
}

/** The version a nonce carries; 0 for one without the marker (made before versions were carried). */
function versionOf(nonce: string): number {
  const bytes = Buffer.from(nonce, 'base64url');
  return bytes.length === 16 && bytes[NONCE_RANDOM_BYTES] === VERSION_MARKER ? bytes.readUInt32BE(NONCE_RANDOM_BYTES + 1) : 0;
}

/**
 * The device cookie of OWASP's "Slow Down Online Guessing Attacks with Device Cookies": set at sign-up and at
 * every sign-in, it names the account and a fresh nonce, signed with a secret that lives with the database (so
 * every instance accepts it). A sign-in that carries a valid one for the account it names is counted on its
 * own, per device, never in the account's lockout nor its address's: others' guesses cannot hold it back, and a
 * stolen cookie buys only its own device's guesses. `__Host-device` with `Secure` over HTTPS, `device` over plain
 * HTTP, like the session cookie; `HttpOnly; SameSite=Strict; Path=/`.
 */
export class Devices {
  readonly #secrets: SecretSource;
  readonly #name: '__Host-device' | 'device';
  readonly #secure: boolean;
  readonly #maxAgeSeconds: number;
  #ring: Promise<SecretRing> | undefined;

  constructor(secrets: SecretSource, options: { secure: boolean; lifetimeSeconds: number }) {
    this.#secrets = secrets;
    this.#secure = options.secure;
    this.#name = options.secure ? '__Host-device' : 'device';
    this.#maxAgeSeconds = options.lifetimeSeconds;
  }

  /** The device the request's cookie names, when its signature is this database's; undefined for none, or a forged or garbled one. */
  async find(c: Context): Promise<KnownDevice | undefined> {
    const match = VALUE.exec(getCookie(c, this.#name) ?? '');
    if (!match) return undefined;
    const [, userId = '', nonce = '', signature = ''] = match;
    // Signed with any secret still listed: a rotation does not forget the browsers that signed in before it.
    const { all } = await this.#secretRing();
    const given = Buffer.from(signature);
    const genuine = all.some((secret) => {
      const expected = Buffer.from(sign(secret, userId, nonce));
      return expected.length === given.length && timingSafeEqual(given, expected);
    });
    return genuine ? { userId, nonce, credentialVersion: versionOf(nonce) } : undefined;
  }

  /** A new device cookie for the account at its credential version (a new nonce each time), as a `Set-Cookie` value. */
  async issue(userId: string, credentialVersion: number): Promise<string> {
    const nonce = makeNonce(credentialVersion);
    const value = `${userId}.${nonce}.${sign((await this.#secretRing()).current, userId, nonce)}`;
    // Attribute order is fixed so the contract's pattern can check it.
    return `${this.#name}=${value}; Path=/; Max-Age=${this.#maxAgeSeconds}; HttpOnly; ${this.#secure ? 'Secure; ' : ''}SameSite=Strict`;
  }

  #secretRing(): Promise<SecretRing> {
    // Read once; a failed read (the database away) is tried again next time.
    this.#ring ??= this.#secrets('device-cookies').catch((error: unknown) => {
      this.#ring = undefined;
      throw error;
    });
    return this.#ring;
  }
}

function sign(secret: Buffer, userId: string, nonce: string): string {
  return createHmac('sha256', secret).update(`${userId}.${nonce}`).digest('base64url');
}

/**
 * One request's view of the device cookie, for the sign-in and sign-up handlers: `find` reads it (only when
 * asked), `issue` sets a new one on the answer. The kernel writes one value per header, so the cookie is
 * appended to the answer by the middleware that made this (`deviceCookie` in `app.ts`).
 */
export interface DeviceRequest {
  find(): Promise<KnownDevice | undefined>;
  /** Sets a new device cookie for the account at `credentialVersion`, the version the sign-in read (or a change made). */
  issue(userId: string, credentialVersion: number): Promise<void>;
  /** A new device cookie as a `Set-Cookie` value, for an answer that sends it as its only cookie (a password change). */
  make(userId: string, credentialVersion: number): Promise<string>;
}

/** The device, when it is the account's, at the account's credential version now; a cookie made before a password change is no longer the account's device. */
export function deviceOfAccount(device: KnownDevice | undefined, account: { userId: string; credentialVersion: number } | undefined): KnownDevice | undefined {
  return device !== undefined && account !== undefined && device.userId === account.userId && device.credentialVersion === account.credentialVersion
    ? device
    : undefined;
}

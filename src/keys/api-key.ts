import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API keys look like `tka_` + 32 base62 characters + a 6-character base62 CRC32
 * checksum, in the manner of GitHub's token formats: the prefix makes a leaked key
 * easy to spot (secret scanners match it), and the checksum rejects a mistyped or
 * made-up key without touching the database. 32 base62 characters carry 190 bits.
 */
export const API_KEY_PREFIX = 'tka_';
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);
/** Matches anything shaped like a key, to scrub it from text that may be logged (global: use with `replace`). */
export const API_KEY_LIKE = new RegExp(`${API_KEY_PREFIX}[0-9A-Za-z]{8,}`, 'g');
const API_KEY_INSIDE = new RegExp(`${API_KEY_PREFIX}[0-9A-Za-z]{8,}`, 'i');

/** The text with anything shaped like a key replaced, for logs and for paths sent back in a problem. */
export function scrubKeys(text: string): string {
  // Every request's path passes here for the log line; most hold no prefix, and need no regex.
  if (!text.includes(API_KEY_PREFIX)) return text;
  return text.replace(API_KEY_LIKE, `${API_KEY_PREFIX}[REDACTED]`);
}

/** True when the text holds something shaped like a key (any case of the prefix). */
export function looksLikeApiKey(text: string): boolean {
  return API_KEY_INSIDE.test(text);
}

export interface NewApiKey {
  /** The key itself; shown to its owner once and never stored. */
  key: string;
  /** SHA-256 of the key: what the database stores and looks keys up by. */
  digest: Buffer;
  /** Safe to show in lists: the prefix and the last four characters. */
  hint: string;
}

export function generateApiKey(): NewApiKey {
  const body = API_KEY_PREFIX + randomBase62(SECRET_LENGTH);
  const key = body + checksum(body);
  return { key, digest: digestApiKey(key), hint: hintFor(key) };
}

/** True when the token has the key format and a correct checksum (says nothing about whether it exists). */
export function isWellFormedApiKey(token: string): boolean {
  if (!API_KEY_PATTERN.test(token)) return false;
  const body = token.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === token.slice(-CHECKSUM_LENGTH);
}

/** SHA-256 of the key; the one-shot `hash` costs about a third of a `createHash` object (measured on every request). */
export function digestApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

export function hintFor(key: string): string {
  return `${API_KEY_PREFIX}…${key.slice(-4)}`;
}

function checksum(body: string): string {
  let value = crc32(body);
  let text = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    text = BASE62[value % 62] + text;
    value = Math.floor(value / 62);
  }
  return text;
}

/** Uniform base62 by rejection sampling: bytes >= 248 would bias the first 248 % 62 digits. */
export function randomBase62(length: number, alphabet: string = BASE62): string {
  const limit = 256 - (256 % alphabet.length);
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) text += alphabet[byte % alphabet.length];
      if (text.length === length) break;
    }
  }
  return text;
}

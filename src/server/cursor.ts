import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Sort } from '../contract/types.js';
import { boundOptionsDigest } from '../http/list-options.js';
import type { ListScope, Position } from '../store/store.js';

/** What a cursor remembers: whose list, which list, which order and filters, and the last item sent. */
export interface CursorState {
  scope: ListScope;
  userId: string;
  sort: Sort;
  /**
   * The list request's options as validated (defaults filled in): each one but `cursor`, `limit` and `sort` (kept
   * on its own, to be named when it differs) binds the cursor, as the spec's `Cursor` says. Absent: no filter.
   */
  options?: object;
  after: Position;
}

/** The options that do not bind: the position itself, the page size (free to change between pages), and `sort` (`o`). */
const UNBOUND: ReadonlySet<string> = new Set(['cursor', 'limit', 'sort']);

interface Payload {
  s: ListScope;
  u: string;
  o: Sort;
  /** The digest of the filters (`list-options.ts`); absent for a list without any, as every cursor made before filters bound them. */
  f?: string;
  c: string;
  i: string;
}

export type CursorReading = { ok: true; after: Position } | { ok: false; reason: string };

/**
 * Opaque, signed cursors: `base64url(JSON).base64url(HMAC-SHA256)[:16 bytes]`.
 * The signature makes a tampered cursor detectable; the payload binds it to one
 * caller, one list, one order and one set of filters, so a cursor used elsewhere
 * is refused rather than silently paging through the wrong list.
 */
export class CursorCodec {
  readonly #signing: Buffer;
  readonly #accepted: readonly Buffer[];

  /** Signs with `secret` (or the ring's current secret); a ring's older secrets still verify (docs/data.md, "Secrets"). */
  constructor(secret: Buffer | { current: Buffer; all: readonly Buffer[] }) {
    this.#signing = Buffer.isBuffer(secret) ? secret : secret.current;
    this.#accepted = Buffer.isBuffer(secret) ? [secret] : secret.all;
  }

  encode(state: CursorState): string {
    const filters = state.options === undefined ? undefined : boundOptionsDigest(state.options, UNBOUND);
    const payload: Payload = { s: state.scope, u: state.userId, o: state.sort, c: state.after.createdAt, i: state.after.id };
    if (filters !== undefined) payload.f = filters;
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.#sign(body, this.#signing).toString('base64url')}`;
  }

  /** Checks that the cursor is genuine and belongs to this request. */
  decode(cursor: string, expected: Omit<CursorState, 'after'>): CursorReading {
    const [body = '', signature = ''] = cursor.split('.');
    const given = Buffer.from(signature, 'base64url');
    const genuine = this.#accepted.some((secret) => {
      const wanted = this.#sign(body, secret);
      return given.length === wanted.length && timingSafeEqual(given, wanted);
    });
    if (!genuine) return { ok: false, reason: 'is not a cursor this service issued' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'is not a cursor this service issued' };
    }
    // Signed is not enough: a payload of another shape (a key rotation, a bug, a forged secret) must not reach the store.
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'is not a cursor this service issued' };
    const payload = parsed as Partial<Payload>;
    if (payload.u !== expected.userId || payload.s !== expected.scope) return { ok: false, reason: 'belongs to another list' };
    if (payload.o !== expected.sort) return { ok: false, reason: `was issued for sort=${String(payload.o)}; send the same sort as the first page` };
    if (payload.f !== undefined && typeof payload.f !== 'string') return { ok: false, reason: 'is not a cursor this service issued' };
    if (payload.f !== (expected.options === undefined ? undefined : boundOptionsDigest(expected.options, UNBOUND)))
      return { ok: false, reason: 'was issued for other filters; send the same filters as the first page' };
    if (typeof payload.c !== 'string' || typeof payload.i !== 'string') return { ok: false, reason: 'is not a cursor this service issued' };
    return { ok: true, after: { createdAt: payload.c, id: payload.i } };
  }

  #sign(body: string, secret: Buffer): Buffer {
    return createHmac('sha256', secret).update(body).digest().subarray(0, 16);
  }
}

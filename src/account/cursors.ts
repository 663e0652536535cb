import type { AccountSchemas } from '../contract/account-types.js';
import { boundOptionsDigest } from '../http/list-options.js';
import type { KeyPosition } from '../store/store.js';

type EventCursor = AccountSchemas['EventCursor'];
type KeyCursor = AccountSchemas['KeyCursor'];

/**
 * The account API's cursors: a position in one of the signed-in user's lists, as base64url text. Not
 * signed: a cursor only moves within the caller's own keys or events. Decoding is strict, so that a
 * made-up cursor is refused here (`422`) rather than by the database: every time in it must be the
 * RFC 3339 text the store writes (`2026-01-05T08:15:00.000Z`), a real moment from year 1 to 9999.
 *
 * A cursor is bound to the query it was made for (the spec's `KeyCursor` and `EventCursor`): every parameter
 * but `cursor` and `limit` goes into it as a digest (`list-options.ts`), in a last field that a list without
 * filters leaves out, so a cursor made with a filter does not continue a list without it, nor one with another.
 */
const STORED_TIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** True for the RFC 3339 text `Date#toISOString` writes, with a four-digit year from 0001 (what both databases take). */
export function isStoredTime(text: string): boolean {
  const match = STORED_TIME.exec(text);
  if (!match || Number(match[1]) < 1) return false;
  const ms = Date.parse(text);
  // The round trip refuses what Date.parse rolls over (February 30th, 24:00).
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text;
}

const EVENT_ID = /^evt_[0-9a-z]{16}$/;
const KEY_ID = /^key_[0-9a-z]{16}$/;

/** The query parameters that do not bind a cursor: the position itself and the page size (free to change between pages). */
const UNBOUND: ReadonlySet<string> = new Set(['cursor', 'limit']);

/** A list query's options, as validated. */
type ListQuery = object;

function fields(cursor: string): string[] {
  return Buffer.from(cursor, 'base64url').toString('utf8').split('|');
}

function encode(fields: string, query: ListQuery): string {
  const filters = boundOptionsDigest(query, UNBOUND);
  return Buffer.from(filters === undefined ? fields : `${fields}|${filters}`).toString('base64url');
}

/** Whether what follows a cursor's position (its filters' digest, or nothing) is what this query's would be. */
function sameFilters(rest: string[], query: ListQuery): boolean {
  return rest.length <= 1 && rest[0] === boundOptionsDigest(query, UNBOUND);
}

/** The position after an event: its time and id. */
export function encodeEventCursor(event: { at: string; id: string }, query: ListQuery): EventCursor {
  return encode(`${event.at}|${event.id}`, query);
}

export function decodeEventCursor(cursor: string, query: ListQuery): { at: string; id: string } | undefined {
  const [at, id, ...rest] = fields(cursor);
  if (!sameFilters(rest, query) || at === undefined || id === undefined || !isStoredTime(at) || !EVENT_ID.test(id)) return undefined;
  return { at, id };
}

/** Where a key list goes on: the moment its first page was taken (which keys count as active), and the last key shown. */
export interface KeyListPosition extends KeyPosition {
  asOf: string;
}

export function encodeKeyCursor(position: KeyListPosition, query: ListQuery): KeyCursor {
  return encode(`${position.asOf}|${position.active ? 1 : 0}|${position.createdAt}|${position.id}`, query);
}

export function decodeKeyCursor(cursor: string, query: ListQuery): KeyListPosition | undefined {
  const [asOf, active, createdAt, id, ...rest] = fields(cursor);
  if (!sameFilters(rest, query) || asOf === undefined || createdAt === undefined || id === undefined) return undefined;
  if (!isStoredTime(asOf) || (active !== '0' && active !== '1') || !isStoredTime(createdAt) || !KEY_ID.test(id)) return undefined;
  return { asOf, active: active === '1', createdAt, id };
}

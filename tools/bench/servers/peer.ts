/**
 * What the peer servers share: their configuration, the page they answer with and
 * a hand-written check of `ListRequest` for the peers that have no schema validator
 * (raw node:http and bare Hono), so that every peer does the same work per request:
 * check the bearer token, parse the body, check it against the contract, build and
 * serialise the page.
 */
import type { Problem, ProblemType } from '../../../src/contract/types.js';
import { FALLBACK_KEY, FALLBACK_OWNER_ID, fixtureItems, type Item, type ItemPage, type ListRequest } from '../lib/fixture.js';

export type { ListRequest };

export interface PeerConfig {
  port: number;
  host: string;
  /** The exact `Authorization` header value a request must carry. */
  expectedAuthorization: string;
}

export function readPeerConfig(env: NodeJS.ProcessEnv = process.env): PeerConfig {
  const port = Number(env['PORT']);
  if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set to a port number');
  return {
    port,
    host: env['HOST'] ?? '127.0.0.1',
    expectedAuthorization: `Bearer ${env['BENCH_KEY'] ?? FALLBACK_KEY}`,
  };
}

const ascending = fixtureItems(process.env['BENCH_OWNER_ID'] ?? FALLBACK_OWNER_ID);
const descending = [...ascending].reverse();

/** One page of the fixture; a cursor is an offset, which is all a fixed list needs. */
export function listPage(request: ListRequest): ItemPage {
  const items: Item[] = request.sort === 'desc' ? descending : ascending;
  const start = request.cursor === undefined ? 0 : Number.parseInt(Buffer.from(request.cursor, 'base64url').toString(), 10) || 0;
  const end = start + (request.limit ?? 20);
  return { items: items.slice(start, end), nextCursor: end < items.length ? Buffer.from(String(end)).toString('base64url') : null };
}

const CURSOR_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)?$/;

/** Checks a parsed body against the spec's `ListRequest`; returns what is wrong, or `undefined`. */
export function checkListRequest(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object';
  for (const [field, value] of Object.entries(body)) {
    switch (field) {
      case 'sort':
        if (value !== 'asc' && value !== 'desc') return '/sort must be one of: asc, desc';
        break;
      case 'limit':
        if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 100) return '/limit must be an integer from 1 to 100';
        break;
      case 'cursor':
        if (typeof value !== 'string' || value.length < 1 || value.length > 512 || !CURSOR_PATTERN.test(value)) return '/cursor is not a cursor';
        break;
      default:
        return `/${field} is not a known field`;
    }
  }
  return undefined;
}

export const MAX_BODY_BYTES = 8192;

// Exit normally on SIGTERM, so that `node --cpu-prof` writes its profile (bench:profile).
process.once('SIGTERM', () => process.exit(0));

export const CHALLENGE = 'Bearer realm="api"';

/** The part of a contract `ProblemType` after `urn:problem-type:`. */
export type ProblemName = ProblemType extends `urn:problem-type:${infer Name}` ? Name : never;

/** A problem+json body (RFC 9457) as the contract's `Problem`, without the request id. */
export function problem(name: ProblemName, status: number, title: string, detail: string): string {
  const body: Problem = { type: `urn:problem-type:${name}`, title, status, detail };
  return JSON.stringify(body);
}

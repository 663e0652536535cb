/**
 * `Prefer` (RFC 7240) picks the mock's example or status (`Prefer: code=429`); a server ignores it, as
 * the RFC asks of a preference it does not support. Left on when a page moves from the mock to a
 * server, it changes nothing there, so a developer would wonder why the 429 never comes; and a
 * server whose CORS does not allow the header fails the browser's preflight, which the page sees only
 * as "Failed to fetch". In development this middleware says so in the console: the mock answers a
 * `Prefer` with `Preference-Applied` (`src/mock/edge.ts`), so an answer without it came from something
 * else. In production it does nothing.
 */
import type { Middleware } from 'openapi-fetch';

/** Whether the page runs a development build: Vite's `import.meta.env.DEV`, else `NODE_ENV` other than `production`. */
export function isDevelopment(): boolean {
  const vite = (import.meta as { env?: { DEV?: boolean } }).env?.DEV;
  if (typeof vite === 'boolean') return vite;
  const node = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['NODE_ENV'];
  return node !== undefined && node !== 'production';
}

/** Warns (`console.warn`) when a `Prefer` header goes unheeded or its request fails; `warn` replaces the console for tests. */
export function preferWarnings(warn: (message: string) => void = (message) => console.warn(message)): Middleware {
  return {
    onResponse({ request, response }) {
      const prefer = request.headers.get('prefer');
      if (prefer === null || response.headers.has('preference-applied')) return undefined;
      warn(
        `${request.method} ${request.url}: the answer ignored "Prefer: ${prefer}". Only the mock (npm run mock) honours Prefer; ` +
          "this answer is the server's own. Send Prefer in development against the mock only.",
      );
      return undefined;
    },
    onError({ request, error }) {
      const prefer = request.headers.get('prefer');
      if (prefer === null) return undefined;
      warn(
        `${request.method} ${request.url} failed (${String(error)}) with "Prefer: ${prefer}", which only the mock honours. ` +
          'A server whose CORS does not allow Prefer fails the browser\'s preflight, which shows as "Failed to fetch": drop the header when the client points at a server.',
      );
      return undefined;
    },
  };
}

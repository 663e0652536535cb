import type { Context } from 'hono';
import { ApiError } from '../http/problems.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_HOSTS = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;
/** An origin served from this machine (a dev server's page): the only kind of `Origin` a refusal repeats, and hints at. */
const LOOPBACK_ORIGIN = /^https?:\/\/(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])(:\d{1,5})?$/;

/**
 * Refuses an unsafe request (any method but GET, HEAD, OPTIONS) that a browser
 * says came from elsewhere, whatever its content type, in addition to the
 * cookie's `SameSite=Strict`:
 * - `Sec-Fetch-Site`, when sent, must be `same-origin`;
 * - `Origin`, when sent, must be the web application's origin: `origin` when
 *   configured (`WEB_ORIGIN`), else `http://<Host>` for a loopback Host only (local
 *   development), so a DNS-rebound name is refused too.
 * A request with neither header did not come from a browser page (curl, a
 * script) and carries no ambient cookie, so it is let through.
 *
 * A dev server's proxy (Vite's `server.proxy`) passes the browser's same-origin request on, `Origin` and
 * all; with `changeOrigin: true` it rewrites `Host` to the target's, so `Origin` no longer matches and the
 * write is refused. That is kept: `Host` and `Origin` are what tell a forged request apart, and a header a
 * proxy could add (`X-Forwarded-Host`) any script can send too. The refusal says what to change instead
 * (docs/mock-and-client.md, "Through a dev server's proxy").
 */
export function checkSameOrigin(c: Context, origin: string | undefined): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') throw crossSite(`it came from a ${site} page`);
  const sentOrigin = c.req.header('origin');
  if (sentOrigin === undefined) return;
  const expected = expectedOrigin(c, origin);
  if (sentOrigin !== expected) throw crossSite('its Origin is another site', proxyHint(sentOrigin, expected, origin !== undefined));
}

function expectedOrigin(c: Context, origin: string | undefined): string | undefined {
  if (origin !== undefined) return origin;
  const host = c.req.header('host') ?? '';
  return LOOPBACK_HOSTS.test(host) ? `http://${host}` : undefined;
}

/**
 * What a developer whose page on this machine was refused should change, or undefined for any other `Origin`.
 * A page on another site never reads the answer (no CORS), so the hint tells an attacker nothing; it names
 * only origins that passed the loopback pattern, never arbitrary header text.
 */
function proxyHint(sentOrigin: string, expected: string | undefined, configured: boolean): string | undefined {
  if (!LOOPBACK_ORIGIN.test(sentOrigin) || expected === undefined) return undefined;
  const accepted = configured ? `this web application's origin (WEB_ORIGIN), ${expected}` : `${expected}, the origin of the Host it was sent to`;
  const change = configured
    ? `make the proxy send Origin: ${expected} (Vite: a configure hook that sets it on proxyReq)`
    : 'keep the Host the browser sent (Vite: leave changeOrigin off, its default, for this target)';
  return `Its Origin is ${sentOrigin}, not ${accepted}. If a dev server's proxy passed it on, ${change}; see "Through a dev server's proxy" in docs/mock-and-client.md.`;
}

function crossSite(why: string, hint?: string): ApiError {
  const detail = `This request did not come from this web application's pages (${why}), so it was refused.`;
  return new ApiError('urn:problem-type:forbidden', hint === undefined ? detail : `${detail} ${hint}`, { reason: 'cross-origin' });
}

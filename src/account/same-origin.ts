import type { Context } from 'hono';
import { ApiError } from '../http/problems.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK_HOSTS = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;

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
 */
export function checkSameOrigin(c: Context, origin: string | undefined): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') throw crossSite(`it came from a ${site} page`);
  const sentOrigin = c.req.header('origin');
  if (sentOrigin === undefined) return;
  if (sentOrigin !== expectedOrigin(c, origin)) throw crossSite('its Origin is another site');
}

function expectedOrigin(c: Context, origin: string | undefined): string | undefined {
  if (origin !== undefined) return origin;
  const host = c.req.header('host') ?? '';
  return LOOPBACK_HOSTS.test(host) ? `http://${host}` : undefined;
}

function crossSite(why: string): ApiError {
  return new ApiError('urn:problem-type:forbidden', `This request did not come from this web application's pages (${why}), so it was refused.`, {
    reason: 'cross-origin',
  });
}

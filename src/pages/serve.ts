import type { PageAssets } from './assets.js';

/**
 * Browser-page headers (OWASP Secure Headers Project): a CSP that allows this
 * origin's own script, style, images and API only, Trusted Types for the DOM
 * sinks, no framing, no referrer, no cache.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** `/` is the sign-in page (which sends a signed-in visitor on to the settings). */
const ALIASES: Readonly<Record<string, string>> = { '/': '/sign-in' };

/**
 * A page or asset as a response, with the page headers (and HSTS when the site
 * is served over HTTPS); the not-found page with 404 for any other path.
 */
export function pageResponse(pages: PageAssets, path: string, options: { method: string; secure: boolean; headers?: Record<string, string> }): Response {
  const found = pages.get(ALIASES[path] ?? path);
  const asset = found ?? pages.get('/not-found');
  const headers = {
    ...PAGE_HEADERS,
    ...(options.secure && { 'strict-transport-security': 'max-age=15552000; includeSubDomains' }),
    ...options.headers,
    'content-type': asset?.contentType ?? 'text/plain; charset=utf-8',
  };
  return new Response(options.method === 'HEAD' ? null : (asset?.body ?? 'Not found'), { status: found ? 200 : 404, headers });
}

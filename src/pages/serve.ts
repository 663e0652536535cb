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

/** The pages whose form posts to itself when the script is not running: `/sign-in`, `/sign-up`. */
export const FORM_PAGES: readonly string[] = ['/sign-in', '/sign-up', '/settings'];

/**
 * The answer to a sign-in or sign-up form posted without the page's script (JavaScript off, or not loaded yet):
 * `303 See Other` back to the page, which says the script is needed. The body (the password) is never read; the
 * form posts so that it is not put in a URL, as a form without `method` would.
 */
export function formFallback(path: string, options: { secure: boolean; headers?: Record<string, string> }): Response {
  const headers = {
    ...PAGE_HEADERS,
    ...(options.secure && { 'strict-transport-security': 'max-age=15552000; includeSubDomains' }),
    ...options.headers,
    location: path,
  };
  return new Response(null, { status: 303, headers });
}

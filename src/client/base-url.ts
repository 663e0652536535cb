/**
 * A client's `baseUrl`, checked when the client is made rather than at its first call: an absolute URL, or a path on
 * the page's own origin such as `/api` (behind a dev server's proxy), which only a runtime with a page resolves.
 * Node has none: there `fetch('/api/shared')` fails only at the first call, as "Failed to parse URL from /api/shared".
 *
 * @param factory the function that was called, for the message (`createApiClient`).
 * @returns the URL without its trailing slashes.
 */
export function checkBaseUrl(factory: string, baseUrl: unknown): string {
  const onThisOrigin = typeof baseUrl === 'string' && /^\/(?!\/)/.test(baseUrl);
  if (typeof baseUrl !== 'string' || (!onThisOrigin && !URL.canParse(baseUrl))) {
    throw new TypeError(
      `${factory}: baseUrl must be an absolute URL such as "http://127.0.0.1:3000", or a path on the page's own origin such as "/api", got ${JSON.stringify(baseUrl)}`,
    );
  }
  if (onThisOrigin && !resolvesPaths()) {
    throw new TypeError(
      `${factory}: baseUrl ${JSON.stringify(baseUrl)} is a path on the page's origin, and there is no page here (Node, a test, a server): give an absolute URL such as "http://127.0.0.1:3000${baseUrl}"`,
    );
  }
  return baseUrl.replace(/\/+$/, '');
}

/** Whether this runtime's `Request` resolves a path against a page's address: a browser's does; Node's throws. */
function resolvesPaths(): boolean {
  try {
    new Request('/');
    return true;
  } catch {
    return false;
  }
}

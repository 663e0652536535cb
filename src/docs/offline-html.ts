/**
 * Makes a page from `redocly build-docs --inlineBundle` self-contained and
 * private: Redoc's script is already inlined, telemetry is off (`telemetry: off`
 * in redocly.yaml), and this step removes the one request left, Redocly's
 * attribution logo, which Redoc 3 always loads from Redocly's CDN. A
 * Content-Security-Policy then forbids the page any request at all, so a
 * future Redoc that adds one is blocked and shows up as a console error (the
 * docs test fails on it) instead of reaching a third party.
 */

/**
 * Only what the inlined page needs: its own inline script and styles (Redoc
 * injects both at run time), images and workers from `data:` and `blob:`
 * URLs (the download button and search use them), and nothing from any host.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  'worker-src blob:',
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The attribution Redoc shows ("API docs by" and Redocly's logo), as an inline image: the same credit, no request. */
const ATTRIBUTION_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16"><text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="600" fill="#227a4e">Redocly</text></svg>',
)}`;

/** The CDN addresses Redoc 3's bundle loads the attribution logo from. */
const CDN_LOGOS = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];

/** Attributes that make a browser fetch at load time: a `src`, or a `<link>`'s `href`. */
const LOADING_ATTRIBUTE = /<(?:script|img|iframe|source|audio|video|embed)\b[^>]*\ssrc=["']?(?:https?:)?\/\/|<link\b[^>]*\shref=["']?(?:https?:)?\/\//i;

/**
 * The page as it should be written: logo inlined, the policy first in `<head>`.
 * Throws when the page is not what this step expects (Redoc loaded from a CDN,
 * not inlined; the logo moved), so an upgrade of Redocly CLI fails `npm run docs`
 * loudly rather than leaving a request in.
 */
export function makeOffline(html: string, source: string): string {
  if (!/<head>/.test(html)) throw new Error(`${source}: no <head> to put the Content-Security-Policy in`);
  const remote = LOADING_ATTRIBUTE.exec(html);
  if (remote) throw new Error(`${source}: the page loads something from the network (${remote[0]}...); build it with --inlineBundle`);
  let page = html;
  for (const logo of CDN_LOGOS) {
    if (!page.includes(logo))
      throw new Error(`${source}: Redoc no longer loads its logo from ${logo}; check what it loads now and update src/docs/offline-html.ts`);
    page = page.replaceAll(logo, ATTRIBUTION_LOGO);
  }
  const meta = `<meta http-equiv="Content-Security-Policy" content="${DOCS_CONTENT_SECURITY_POLICY}">`;
  return page.replace('<head>', `<head>\n  ${meta}`);
}

import { describe, expect, it } from 'vitest';
import { DOCS_CONTENT_SECURITY_POLICY, makeOffline } from '../../src/docs/offline-html.js';

const LOGOS = 'src:`https://cdn.redoc.ly/redoc/logo-mini-full.svg`:`https://cdn.redoc.ly/redoc/logo-mini.svg`';
const page = (head: string, body: string) => `<html>\n<head>\n${head}\n</head>\n<body><script type="module">${body}</script></body></html>`;

describe('makeOffline', () => {
  it("swaps Redoc's CDN logo for an inline one and puts the policy first in <head>", () => {
    const html = makeOffline(page('<meta charset="utf8" />', `hydrate(${LOGOS})`), 'x.yaml');
    expect(html).not.toContain('cdn.redoc.ly');
    expect(html).toContain('data:image/svg+xml,');
    expect(html).toMatch(/^<html>\n<head>\n {2}<meta http-equiv="Content-Security-Policy" content="[^"]+">\n<meta charset/);
    expect(html).toContain(`content="${DOCS_CONTENT_SECURITY_POLICY}"`);
  });

  it('forbids the page every request to a host', () => {
    expect(DOCS_CONTENT_SECURITY_POLICY).toMatch(/default-src 'none'/);
    expect(DOCS_CONTENT_SECURITY_POLICY).toMatch(/connect-src 'none'/);
    expect(DOCS_CONTENT_SECURITY_POLICY).not.toMatch(/https?:|\*/);
  });

  it.each([
    {
      given: 'Redoc loaded from a CDN',
      head: '<link rel="modulepreload" href="https://cdn.redocly.com/redoc/v3.0.1/bundles/redoc.standalone.js" />',
      want: 'build it with --inlineBundle',
    },
    { given: 'a script from anywhere', head: '<script src="//example.com/x.js"></script>', want: 'loads something from the network' },
  ])('refuses a page that loads something: $given', ({ head, want }) => {
    expect(() => makeOffline(page(head, `hydrate(${LOGOS})`), 'x.yaml')).toThrow(want);
  });

  it('fails loudly when Redoc no longer loads its logo from where it did', () => {
    expect(() => makeOffline(page('', 'hydrate()'), 'x.yaml')).toThrow(/no longer loads its logo from https:\/\/cdn\.redoc\.ly/);
  });
});

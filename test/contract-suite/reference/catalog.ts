/** The catalog reference server (`catalog.yaml`): 24 products in memory, paged by limit and offset. */
export const CATALOG_SPEC = new URL('./catalog.yaml', import.meta.url).pathname;
export const CATALOG_KEY = 'catalog-key';

export const CATALOG_BUGS = {
  'offset-ignored': 'offset is accepted but ignored: every page starts at the first product',
  'limit-ignored': 'limit is accepted but ignored: every page has 10 products',
  'category-ignored': 'the category filter is accepted but ignored',
  'limit-over-maximum-accepted': 'limit=51 is served instead of refused',
  'unknown-sku-500': 'an unknown sku answers 500',
  'total-as-text': 'total is answered as a string',
} as const;
export type CatalogBug = keyof typeof CATALOG_BUGS;

const products = Array.from({ length: 24 }, (_, index) => {
  const category = index % 3 === 0 ? 'toys' : 'tools';
  return { sku: `${category === 'toys' ? 'TOY' : 'TLS'}-${String(index + 1).padStart(3, '0')}`, name: `Product ${index + 1}`, category, price: 2 + index };
});

const error = (status: number, message: string) =>
  new Response(JSON.stringify({ error: message }), { status, headers: { 'Content-Type': 'application/json' } });
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });

function integer(url: URL, name: string, min: number, max: number, fallback: number): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= min && value <= max ? value : undefined;
}

export function catalogServer(bug?: CatalogBug): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (request.headers.get('x-api-key') !== CATALOG_KEY) return error(401, 'an API key is required');
    if (request.method !== 'GET') return error(405, 'method not allowed');
    if (url.pathname === '/products') {
      const limit = integer(url, 'limit', 1, bug === 'limit-over-maximum-accepted' ? 1000 : 50, 10);
      const offset = integer(url, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
      const category = url.searchParams.get('category');
      if (limit === undefined || offset === undefined) return error(400, 'limit and offset must be integers within their bounds');
      if (category !== null && category !== 'tools' && category !== 'toys') return error(400, 'unknown category');
      const matching = products.filter((product) => category === null || bug === 'category-ignored' || product.category === category);
      const start = bug === 'offset-ignored' ? 0 : offset;
      const items = matching.slice(start, start + (bug === 'limit-ignored' ? 10 : limit));
      return json({ items, total: bug === 'total-as-text' ? String(matching.length) : matching.length });
    }
    const match = /^\/products\/([^/]+)$/.exec(url.pathname);
    if (!match?.[1]) return error(404, 'no such path');
    const sku = decodeURIComponent(match[1]);
    if (!/^[A-Z]{3}-[0-9]{3}$/.test(sku)) return error(400, 'malformed sku');
    const product = products.find((entry) => entry.sku === sku);
    if (!product) return bug === 'unknown-sku-500' ? error(500, 'planted: unknown sku') : error(404, 'no such product');
    return json(product);
  };
}

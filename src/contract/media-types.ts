/** Media types as OpenAPI writes them in `content` maps, and as answers carry them in `Content-Type`. */

/** `application/json`, `application/problem+json`, `application/vnd.api+json; charset=utf-8`: a body to read as JSON. */
export function isJsonMediaType(mediaType: string): boolean {
  const essence = essenceOf(mediaType);
  return essence === 'application/json' || essence.endsWith('+json') || essence === '*/*';
}

/** The type and subtype, lower case, without parameters. */
export function essenceOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * The documented media type an answer's content type falls under: the exact one, else a range
 * (`text/*`, then `*\/*`), as OpenAPI 3 §4.8.14 says the most specific key applies.
 */
export function documentedMediaType(documented: readonly string[], contentType: string): string | undefined {
  const essence = essenceOf(contentType);
  const keys = documented.map((key) => [key, essenceOf(key)] as const);
  const exact = keys.find(([, key]) => key === essence);
  if (exact) return exact[0];
  const range = keys.find(([, key]) => key === `${essence.split('/')[0]}/*`);
  if (range) return range[0];
  return keys.find(([, key]) => key === '*/*')?.[0];
}

/**
 * Where a PostgreSQL connection URL carries its password: the user part (`postgres://user:password@host/db`) or
 * libpq's `password` parameter (`?password=`), which pg reads too. One place knows both, so every part that keeps
 * a password off a log line or a command line (`describeDatabase`, the PostgreSQL tools, `migrate:store --to`)
 * sees the same ones.
 */

/** The URL's password, decoded, or '' when it has none. A bare `%` is taken as written. */
export function passwordOf(url: URL): string {
  return decoded(url.password) || (url.searchParams.get('password') ?? '');
}

/** A copy of the URL with its password, wherever it was, replaced by `mask`, or removed when `mask` is ''. */
export function withoutPassword(url: URL, mask = ''): URL {
  const copy = new URL(url);
  if (copy.password) copy.password = mask;
  if (copy.searchParams.has('password')) {
    if (mask === '') copy.searchParams.delete('password');
    else copy.searchParams.set('password', mask);
  }
  return copy;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The reports reference server (`reports.yaml`): OAuth 2 client credentials with a form-encoded token
 * request, and API keys in the query string and in a cookie, each user's reports in memory.
 */
export const REPORTS_SPEC = new URL('./reports.yaml', import.meta.url).pathname;

/** Each user's three credentials: the bearer token the token endpoint would issue, a query key and a cookie key. */
export const REPORTS_USERS = {
  alice: { oauth2: 'tok-alice', queryKey: 'qk-alice', cookieKey: 'ck-alice', client: ['alice-client', 'alice-secret'] },
  bob: { oauth2: 'tok-bob', queryKey: 'qk-bob', cookieKey: 'ck-bob', client: ['bob-client', 'bob-secret'] },
} as const;

export const REPORTS_BUGS = {
  'any-query-key': 'any api_key in the query string is accepted',
  'no-auth-accepted': 'a request with no credential is served as alice',
  'bola-report': 'another user reads my report by id',
  'unknown-report-500': 'an unknown report id answers 500',
  'token-500-without-grant': 'a token request without grant_type answers 500',
  'report-total-as-text': 'a report total is answered as a string',
} as const;
export type ReportsBug = keyof typeof REPORTS_BUGS;

const reports = [
  { id: 'rep_1', owner: 'alice', title: 'Q1', total: 12.5 },
  { id: 'rep_2', owner: 'alice', title: 'Q2', total: 7 },
  { id: 'rep_3', owner: 'bob', title: 'Q1', total: 3 },
];

const error = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: message }), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

export function reportsServer(bug?: ReportsBug): typeof globalThis.fetch {
  const users = Object.entries(REPORTS_USERS);
  const userOf = (request: Request, url: URL): string | undefined => {
    const bearer = request.headers.get('authorization')?.replace(/^Bearer /, '');
    const query = url.searchParams.get('api_key');
    const cookie = /(?:^|;\s*)session_key=([^;]*)/.exec(request.headers.get('cookie') ?? '')?.[1];
    if (query !== null && query !== '' && bug === 'any-query-key') return 'alice';
    const found = users.find(([, user]) => bearer === user.oauth2 || query === user.queryKey || cookie === user.cookieKey)?.[0];
    if (found === undefined && bearer === undefined && query === null && cookie === undefined && bug === 'no-auth-accepted') return 'alice';
    return found;
  };
  const shown = ({ owner: _owner, ...report }: (typeof reports)[number]) =>
    bug === 'report-total-as-text' ? { ...report, total: String(report.total) } : report;

  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.pathname === '/oauth/token') {
      if (request.method !== 'POST') return error(405, 'method not allowed');
      if (!(request.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded')) return error(400, 'a form is required');
      const form = new URLSearchParams(await request.text());
      if (!form.has('grant_type') && bug === 'token-500-without-grant') return error(500, 'planted: no grant_type');
      if (form.get('grant_type') !== 'client_credentials' || !form.get('client_id') || !form.get('client_secret')) return error(400, 'invalid_request');
      const user = users.find(([, entry]) => entry.client[0] === form.get('client_id') && entry.client[1] === form.get('client_secret'))?.[1];
      // Credentials the server does not know: the documented 401, as RFC 6749 §5.2 says for invalid_client.
      if (!user) return error(401, 'invalid_client', { 'WWW-Authenticate': 'Basic realm="token"' });
      return json(200, { access_token: user.oauth2, token_type: 'Bearer', expires_in: 3600 });
    }
    const user = userOf(request, url);
    if (user === undefined) return error(401, 'a credential is required', { 'WWW-Authenticate': 'Bearer realm="reports"' });
    if (request.method !== 'GET') return error(405, 'method not allowed');
    if (url.pathname === '/reports') return json(200, { reports: reports.filter((report) => report.owner === user).map(shown) });
    const match = /^\/reports\/([^/]+)$/.exec(url.pathname);
    if (!match?.[1]) return error(404, 'no such path');
    const id = decodeURIComponent(match[1]);
    if (!/^rep_[0-9]{1,6}$/.test(id)) return error(400, 'malformed report id');
    const report = reports.find((entry) => entry.id === id && (entry.owner === user || bug === 'bola-report'));
    if (!report) return bug === 'unknown-report-500' ? error(500, 'planted: unknown report') : error(404, 'no such report of yours');
    return json(200, shown(report));
  };
}

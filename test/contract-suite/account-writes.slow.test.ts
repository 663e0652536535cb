/**
 * Issue 24, item 5: the account API's positive write cases run, safely, and a write that does not do
 * what its answer says is found. The suite runs with `--allow-writes` and the stateful phase against the
 * web application in-process (`createTestWebApp`): its writes go once each, in the order of
 * `phases/write-order.ts`, under a throwaway account it signs up, so the session it was given is still
 * signed in at the end and no case after a write is a cascade of 401s. Three lying answers, one at a time,
 * are each found by reading back what was written.
 */
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/contract-suite/report.js';
import { runContractSuite, type SuiteReport } from '../../src/contract-suite/run.js';
import { accountSpec, createTestWebApp } from '../helpers/web-app.js';

const ORIGIN = 'http://127.0.0.1:3001';
type Wrapper = (request: Request, next: (request: Request) => Promise<Response>) => Promise<Response>;

async function suite(wrap?: Wrapper, options: { otherUser?: boolean } = {}): Promise<{ report: SuiteReport; stillSignedIn: number }> {
  const t = await createTestWebApp();
  const { cookie } = await t.signUp('suite-owner');
  const token = cookie.split('=')[1] ?? '';
  // A key of the owner's, so that operations on a key by id have one of the owner's to be refused.
  expect((await t.send('POST', '/api/keys', { cookie, body: { name: 'owner key' } })).status).toBe(201);
  const other = options.otherUser ? (await t.signUp('suite-stranger')).cookie.split('=')[1] : undefined;
  // A session is bound to the origin it was started at (`http://<Host>` over plain HTTP); a real client sends Host, an in-process Request does not.
  const served = async (request: Request) => {
    const headers = new Headers(request.headers);
    headers.set('host', new URL(request.url).host);
    return t.app.request(new Request(request, { headers }));
  };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    return wrap ? wrap(request, served) : served(request);
  };
  const report = await runContractSuite({
    baseUrl: `${ORIGIN}/api`,
    token,
    spec: accountSpec,
    fetch,
    allowWrites: true,
    stateful: true,
    ...(other !== undefined && { otherToken: other }),
  });
  const after = await t.send('GET', '/api/session', { cookie });
  return { report, stillSignedIn: after.status };
}

const failures = (report: SuiteReport) =>
  report.results.filter((result) => result.outcome === 'fail').map((result) => `${result.id}: ${result.findings.map((finding) => finding.message).join('; ')}`);
const result = (report: SuiteReport, id: string) => report.results.find((entry) => entry.id === id);

/** Rewrites the JSON answer to one request. */
function answerOf(method: string, path: RegExp, change: (body: Record<string, unknown>) => void): Wrapper {
  return async (request, next) => {
    const response = await next(request);
    if (request.method !== method || !path.test(new URL(request.url).pathname) || response.status >= 300) return response;
    const body = (await response.json()) as Record<string, unknown>;
    change(body);
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(body), { status: response.status, headers });
  };
}

describe('the account API with --allow-writes and the stateful phase', () => {
  it('runs every write once, in a safe order, under a throwaway account, and leaves the given session signed in', async () => {
    const { report, stillSignedIn } = await suite();
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(stillSignedIn).toBe(200);
    // Every write of the account API was sent and accepted: none is left skipped.
    const writes = report.results.filter((entry) => entry.family === 'stateful' || entry.family === 'write-effect');
    expect(writes.map((entry) => `${entry.id}: ${entry.outcome}`)).toEqual([
      'signUp positive stateful throwaway account: pass',
      'createKey positive stateful lifecycle: pass',
      'changePassword positive write-effect: pass',
      'endSession positive write-effect: pass',
      'signOut positive write-effect: pass',
    ]);
    expect(result(report, 'signUp positive stateful throwaway account')?.outcome).toBe('pass');
    expect(result(report, 'createKey positive stateful lifecycle')?.note).toMatch(/^created key_\w+ → revokeKey 200 → .*removeKey 204 → gone$/);
    const signOut = result(report, 'signOut positive write-effect');
    expect(signOut?.outcome).toBe('pass');
    expect(signOut?.note).toBe('answered 204; the ended credential is refused afterwards');
    // Nothing after the writes is a cascade: no case of the run was answered 401 where it expected anything else.
    const cascade = report.results.filter((entry) => entry.status === 401 && entry.expectedStatus !== 401 && entry.outcome !== 'skip');
    expect(cascade.map((entry) => entry.id)).toEqual([]);
  }, 60_000);

  it("refuses another user the owner's keys and sessions by id, and shows them none of the owner's ids", async () => {
    const { report, stillSignedIn } = await suite(undefined, { otherUser: true });
    expect(failures(report), formatReport(report)).toEqual([]);
    expect(stillSignedIn).toBe(200);
    const byId = report.results.filter((entry) => entry.family === 'other-user' && /\{(keyId|sessionId)\}/.test(entry.path));
    expect(byId.map((entry) => `${entry.operationId} ${entry.status}`).sort()).toEqual(['endSession 404', 'removeKey 404', 'revokeKey 404', 'rollKey 404']);
    expect(JSON.stringify(report)).toContain('$OTHER_API_KEY');
  }, 60_000);

  it("finds a create whose answer shows another state than the key has (a revoked key's example for an active key)", async () => {
    const { report } = await suite(answerOf('POST', /^\/api\/keys$/, (body) => (body['revokedAt'] = '2026-01-01T00:00:00.000Z')));
    expect(
      result(report, 'createKey positive stateful lifecycle')
        ?.findings.map((finding) => finding.message)
        .join('\n'),
    ).toMatch(/createKey answered revokedAt "2026-01-01T00:00:00\.000Z", but key_\w+ reads back revokedAt null/);
  }, 60_000);

  it('finds a create that answers with the name it was sent but keeps another', async () => {
    const renaming: Wrapper = async (request, next) => {
      if (request.method !== 'POST' || new URL(request.url).pathname !== '/api/keys') return next(request);
      const sent = (await request.json()) as Record<string, unknown>;
      const response = await next(new Request(request, { body: JSON.stringify({ ...sent, name: 'Kept name' }) }));
      if (response.status >= 300) return response;
      const body = { ...((await response.json()) as Record<string, unknown>), name: sent['name'] };
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      return new Response(JSON.stringify(body), { status: response.status, headers });
    };
    const { report } = await suite(renaming);
    expect(
      result(report, 'createKey positive stateful lifecycle')
        ?.findings.map((finding) => finding.message)
        .join('\n'),
    ).toMatch(/createKey was sent name "[^"]+", but key_\w+ reads back name "Kept name"/);
  }, 60_000);

  it('finds a sign-out that clears the cookie but leaves the session working', async () => {
    const fakeSignOut: Wrapper = async (request, next) =>
      request.method === 'DELETE' && new URL(request.url).pathname === '/api/session' && request.headers.has('cookie')
        ? new Response(null, { status: 204, headers: { 'Set-Cookie': 'session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict' } })
        : next(request);
    const { report } = await suite(fakeSignOut);
    expect(
      result(report, 'signOut positive write-effect')
        ?.findings.map((finding) => finding.message)
        .join('\n'),
    ).toMatch(/signOut answered 204 and cleared the cookie, but the credential still gets 200 from getSession/);
  }, 60_000);
});

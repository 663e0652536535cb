/**
 * Issue 24, item 5: the account API's positive write cases run, safely, and a write that does not do
 * what its answer says is found. The suite runs with `--allow-writes` and the stateful phase against the
 * web application in-process (`createTestWebApp`): its writes go once each, in the order of
 * `phases/write-order.ts`, under a throwaway account it signs up, so the session it was given is still
 * signed in at the end and no case after a write is a cascade of 401s. Three lying answers, one at a time,
 * are each found by reading back what was written. The whole run, and a rename that does nothing, are in
 * `npm test` (`account-writes.test.ts`); these runs, each as long, stay here.
 */
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/contract-suite/report.js';
import { answerOf, failures, result, accountSuite as suite, type Wrapper } from './fixtures/account-suite.js';

describe('the account API with --allow-writes and the stateful phase', () => {
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

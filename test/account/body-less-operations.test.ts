/**
 * A body sent to an operation that takes none is refused with the contract's 400, never ignored (issue 33, point 6):
 * `POST /keys/{keyId}/revoke` with `not json` was a 200 and `DELETE /keys/{keyId}` with `{"x":1}` a 204, while a
 * GET with a body was a 400. Over the wire, only what the headers announce counts, so the browser's own requests
 * (a POST with `Content-Length: 0`, a DELETE with none) go through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type InProcessServer, startInProcessServer } from '../helpers/in-process-server.js';
import { accountChecker, cookieOf, createTestWebApp, PASSWORD } from '../helpers/web-app.js';

const BODY_LESS = [
  { method: 'POST', path: (keyId: string) => `/api/keys/${keyId}/revoke`, operationId: 'revokeKey' },
  { method: 'DELETE', path: (keyId: string) => `/api/keys/${keyId}`, operationId: 'removeKey' },
  { method: 'DELETE', path: () => '/api/sessions/ses_0000000000000000', operationId: 'endSession' },
  { method: 'DELETE', path: () => '/api/session', operationId: 'signOut' },
] as const;

describe('an operation that takes no body, in-process', () => {
  it.each(BODY_LESS)('$operationId answers 400 malformed-request to a body, and goes on without one', async ({ method, path }) => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ann');
    const created = await t.send('POST', '/api/keys', { cookie, body: { name: 'ci' } });
    const keyId = created.json.key.id as string;
    for (const rawBody of ['not json', '{"x":1}']) {
      const refused = await t.send(method, path(keyId), { cookie, rawBody, headers: { 'Content-Type': 'application/json' } });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.json).toMatchObject({ type: 'urn:problem-type:malformed-request', detail: expect.stringContaining('takes no request body') });
    }
    // Nothing was done: the key is still listed active, the session still signed in.
    expect((await t.send('GET', '/api/keys', { cookie })).json.keys[0]).toMatchObject({ id: keyId, status: 'active' });
    expect((await t.send('GET', '/api/session', { cookie })).status).toBe(200);
    expect((await t.send(method, path(keyId), { cookie })).status).not.toBe(400);
    await t.store.close();
  });
});

describe('an operation that takes no body, over the wire', () => {
  const database = scratchDatabase('body-less-');
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcessServer({ databasePath: database.path });
  });
  afterAll(async () => {
    await server.stop();
    database.remove();
  });

  it('refuses a body announced by Content-Length or Transfer-Encoding, and serves a POST with Content-Length: 0', async () => {
    const origin = { Origin: server.webUrl, 'Sec-Fetch-Site': 'same-origin' };
    const signUp = await fetch(`${server.webUrl}/api/users`, {
      method: 'POST',
      headers: { ...origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'wire', password: PASSWORD }),
    });
    const cookie = cookieOf(signUp);
    const created = await fetch(`${server.webUrl}/api/keys`, {
      method: 'POST',
      headers: { ...origin, Cookie: cookie, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    });
    const keyId = ((await created.json()) as { key: { id: string } }).key.id;
    const revoke = `${server.webUrl}/api/keys/${keyId}/revoke`;
    const withLength = await fetch(revoke, { method: 'POST', headers: { ...origin, Cookie: cookie }, body: 'not json' });
    const chunked = await fetch(revoke, {
      method: 'POST',
      headers: { ...origin, Cookie: cookie },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"x":1}'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    for (const refused of [withLength, chunked]) {
      const text = await refused.text();
      expect(refused.status, text).toBe(400);
      expect(accountChecker.check('revokeKey', { status: refused.status, headers: refused.headers, body: text })).toEqual([]);
    }
    const revoked = await fetch(revoke, { method: 'POST', headers: { ...origin, Cookie: cookie, 'Content-Length': '0' } });
    expect(revoked.status, await revoked.text()).toBe(200);
  });
});

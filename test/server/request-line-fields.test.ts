/** What a request line says about who called and why a request was refused, in-process on both APIs. */
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.js';
import { createTestWebApp } from '../helpers/web-app.js';

const requestLines = (logs: Array<Record<string, unknown>>) => logs.filter((line) => 'requestId' in line && 'status' in line);

describe('the request line', () => {
  it("names the key's user and the key by their ids (never the key), and the problem type of a refusal", async () => {
    const t = await createTestApp({ limits: { rateLimit: { requests: 1, windowSeconds: 60 } } });
    const { key, keyId, user } = await t.addUser('ada');
    await t.send('POST', '/', { key, body: {} });
    await t.send('POST', '/', { key, body: {} });
    await t.send('POST', '/', { body: {} });
    const [served, limited, unauthenticated] = requestLines(t.logs);
    expect(served).toMatchObject({ userId: user.id, keyId, status: 200, clientAddress: 'in-process' });
    expect(served?.['problem']).toBeUndefined();
    expect(limited).toMatchObject({ userId: user.id, keyId, status: 429, problem: 'urn:problem-type:rate-limited' });
    expect(unauthenticated).toMatchObject({ status: 401, problem: 'urn:problem-type:unauthorized' });
    expect(unauthenticated?.['userId']).toBeUndefined();
    expect(JSON.stringify(t.logs)).not.toContain(key);
    await t.store.close();
  });

  it("names a signed-in user of the web application, and not a session's id or cookie", async () => {
    const t = await createTestWebApp();
    const { cookie, userId } = await t.signUp('grace');
    t.logs.length = 0;
    expect((await t.send('GET', '/api/session', { cookie })).status).toBe(200);
    expect((await t.send('GET', '/api/session')).status).toBe(401);
    const [signedIn, anonymous] = requestLines(t.logs);
    expect(signedIn).toMatchObject({ userId, status: 200, listener: 'web' });
    expect(signedIn?.['keyId']).toBeUndefined();
    expect(anonymous).toMatchObject({ status: 401, problem: 'urn:problem-type:unauthorized' });
    expect(JSON.stringify(t.logs)).not.toContain(cookie.split('=')[1]);
    await t.store.close();
  });
});

import { describe, expect, it } from 'vitest';
import { StoreUnavailable } from '../../src/store/store.js';
import { createTestWebApp } from '../helpers/web-app.js';

describe('the web application while its database is away', () => {
  it('answers the account API with its documented 503 problem and Retry-After, logged without a stack, and recovers', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    const findSession = t.store.findSessionByDigest.bind(t.store);
    t.store.findSessionByDigest = async () => {
      throw new StoreUnavailable('the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432');
    };
    const response = await t.app.request('http://127.0.0.1:3001/api/session', { headers: { Host: '127.0.0.1:3001', Cookie: cookie } });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toMatchObject({ type: 'urn:problem-type:service-unavailable', status: 503 });
    expect(JSON.stringify(t.logs.filter((line) => line['level'] === 'error'))).not.toContain('.ts:');
    t.store.findSessionByDigest = findSession;
    expect((await t.send('GET', '/api/session', { cookie })).status).toBe(200);
  });
});

/**
 * Per-client budgets keyed on who a request is for (issue 33 point 3): an IPv6 client is counted by its /64, so a
 * machine cannot spread sign-ups over the addresses of its subnet; and a browser holding a valid device cookie is
 * counted against that cookie's account, so others at its address cannot spend the quota it needs to sign in.
 */
import { describe, expect, it } from 'vitest';
import { createTestWebApp, deviceCookieOf, PASSWORD } from '../helpers/web-app.js';

const fromHeader = { clientAddress: (c: { req: { header(name: string): string | undefined } }) => c.req.header('x-test-client') ?? 'in-process' };

describe('budgets keyed on who the request is for', () => {
  it('counts the sign-ups of one IPv6 /64 together, and another /64 apart', async () => {
    const t = await createTestWebApp({ ...fromHeader, accountLimits: { signUp: { perClient: 3, windowSeconds: 3600 } } });
    const signUp = (name: string, client: string) => t.send('POST', '/api/users', { body: { name, password: PASSWORD }, headers: { 'x-test-client': client } });
    for (const [index, client] of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3'].entries())
      expect((await signUp(`spread${index}`, client)).status).toBe(201);
    const fourth = await signUp('spread3', '2001:db8:1:2:abcd::4');
    expect(fourth.status, fourth.text).toBe(429);
    expect((await signUp('elsewhere', '2001:db8:1:3::1')).status).toBe(201);
    // An IPv4 client seen through a dual-stack listener is the IPv4 address it is.
    expect((await signUp('mapped', '::ffff:203.0.113.7')).status).toBe(201);
  });

  it('serves a browser with a valid device cookie when others at its address have spent the address’s quota', async () => {
    const t = await createTestWebApp({ ...fromHeader, limits: { rateLimit: { requests: 5, windowSeconds: 60 } } });
    const signedUp = await t.send('POST', '/api/users', { body: { name: 'grace', password: PASSWORD }, headers: { 'x-test-client': '198.51.100.9' } });
    expect(signedUp.status).toBe(201);
    const device = deviceCookieOf(signedUp);
    expect(device).toMatch(/^device=/);
    // Someone else at the same address (an office, a NAT) burns the address's quota with cookieless requests.
    let refused = 0;
    for (let index = 0; index < 8; index++)
      if ((await t.send('GET', '/api/session', { headers: { 'x-test-client': '198.51.100.9' } })).status === 429) refused++;
    expect(refused).toBeGreaterThan(0);
    const signIn = await t.send('POST', '/api/session', {
      body: { name: 'grace', password: PASSWORD },
      cookie: device,
      headers: { 'x-test-client': '198.51.100.9' },
    });
    expect(signIn.status, signIn.text).toBe(200);
  });
});

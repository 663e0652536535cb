/**
 * The same-origin check's refusal, as a developer behind a dev server's proxy meets it: the write a
 * proxy with `changeOrigin: true` passes on (the page's Origin, the target's Host) is still refused, and
 * the problem says what to change; a write from a real other site gets no such hint.
 */
import { describe, expect, it } from 'vitest';
import { createTestWebApp, PASSWORD } from '../helpers/web-app.js';

const VITE_PAGE = 'http://localhost:5173';

describe('a write passed on by a dev server proxy', () => {
  it("is let through when the proxy keeps the browser's Host (Vite's default, changeOrigin off)", async () => {
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', {
      body: { name: 'ada', password: PASSWORD },
      headers: { Host: 'localhost:5173', Origin: VITE_PAGE, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(response.status, response.text).toBe(201);
  });

  it('is refused when the proxy rewrites Host (changeOrigin: true), and the problem says to leave changeOrigin off', async () => {
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', {
      body: { name: 'ada', password: PASSWORD },
      headers: { Host: '127.0.0.1:3001', Origin: VITE_PAGE, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(response.status).toBe(403);
    expect(response.json.type).toBe('urn:problem-type:forbidden');
    expect(response.json.detail).toContain('its Origin is another site');
    expect(response.json.detail).toContain('Its Origin is http://localhost:5173, not http://127.0.0.1:3001, the origin of the Host it was sent to.');
    expect(response.json.detail).toContain('leave changeOrigin off');
    expect(response.json.detail).toContain('docs/mock-and-client.md');
  });

  it('with WEB_ORIGIN set, the problem names that origin as the one to send', async () => {
    const t = await createTestWebApp({ origin: 'https://keys.example.com' });
    const response = await t.send('POST', '/api/users', {
      body: { name: 'ada', password: PASSWORD },
      headers: { Host: 'keys.example.com', Origin: VITE_PAGE, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(response.status).toBe(403);
    expect(response.json.detail).toContain("not this web application's origin (WEB_ORIGIN), https://keys.example.com");
    expect(response.json.detail).toContain('make the proxy send Origin: https://keys.example.com');
  });

  it.each([
    { given: 'another site', origin: 'https://evil.example' },
    { given: 'a rebound name', origin: 'http://localhost.evil.example:3001' },
    { given: 'a sandboxed frame', origin: 'null' },
  ])('from $given, is refused with no hint and without repeating its Origin', async ({ origin }) => {
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD }, headers: { Origin: origin, 'Sec-Fetch-Site': '' } });
    expect(response.status).toBe(403);
    expect(response.json.detail).toBe("This request did not come from this web application's pages (its Origin is another site), so it was refused.");
  });

  it('from a cross-site page (Sec-Fetch-Site), is refused with no hint even when its Origin is on this machine', async () => {
    const t = await createTestWebApp();
    const response = await t.send('POST', '/api/users', {
      body: { name: 'ada', password: PASSWORD },
      headers: { Origin: VITE_PAGE, 'Sec-Fetch-Site': 'same-site' },
    });
    expect(response.status).toBe(403);
    expect(response.json.detail).toBe("This request did not come from this web application's pages (it came from a same-site page), so it was refused.");
  });
});

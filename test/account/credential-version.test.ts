/**
 * A credential version on each user (issue 33 point 2): a password change ends every session and device cookie made
 * before it, on either engine, including a session whose sign-in had checked the old password when the change came.
 */
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { freshDatabase } from '../helpers/postgres.js';
import { cookieOf, createTestWebApp, deviceCookieOf, PASSWORD } from '../helpers/web-app.js';

const NEW_PASSWORD = 'orbit velvet lantern quietly';

type TestWebApp = Awaited<ReturnType<typeof createTestWebApp>>;

const engines = [
  { name: 'SQLite', open: () => createTestWebApp() },
  { name: 'PostgreSQL', open: async () => createTestWebApp({ databaseUrl: await freshDatabase('credential_version') }) },
];

function changePassword(t: TestWebApp, cookie: string, body: { currentPassword: string; newPassword: string; revokeKeys?: boolean }) {
  return t.send('PUT', '/api/password', { cookie, body });
}

describe.each(engines)('on $name', ({ open }) => {
  it('a sign-in past the hash check when the password changes makes no session that works', async () => {
    const t = await open();
    try {
      const here = (await t.signUp('ada')).cookie;
      // The sign-in is held just before its session is written: its hash check is done, with the old password.
      const createSession = t.store.createSession.bind(t.store);
      let reached: () => void = () => undefined;
      const atSession = new Promise<void>((resolve) => (reached = resolve));
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      t.store.createSession = async (...args) => {
        reached();
        await released;
        return createSession(...args);
      };
      const racing = t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } });
      await atSession;
      t.store.createSession = createSession;
      expect((await changePassword(t, here, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(204);
      release();
      const signedIn = await racing;
      // Refused as a wrong password (it is one now); and were a cookie set, it would name no session.
      expect(signedIn.status, signedIn.text).toBe(401);
      expect(signedIn.json).toMatchObject({ type: 'urn:problem-type:unauthorized' });
      const cookie = cookieOf(signedIn);
      if (cookie) expect((await t.send('GET', '/api/session', { cookie })).status).toBe(401);
      // The one that changed it goes on.
      expect((await t.send('GET', '/api/session', { cookie: here })).status).toBe(200);
    } finally {
      await t.store.close();
    }
  });

  it('ends every session and device cookie made before a change; this browser keeps its session and gets a new device cookie', async () => {
    const t = await open();
    try {
      const signedUp = await t.send('POST', '/api/users', { body: { name: 'ada', password: PASSWORD } });
      const [here, hereDevice] = [cookieOf(signedUp), deviceCookieOf(signedUp)];
      const laptop = await t.send('POST', '/api/session', { body: { name: 'ada', password: PASSWORD } });
      const [laptopSession, laptopDevice] = [cookieOf(laptop), deviceCookieOf(laptop)];
      expect(laptopDevice).not.toBe('');
      const changed = await changePassword(t, `${here}; ${hereDevice}`, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect(changed.status, changed.text).toBe(204);
      const newDevice = deviceCookieOf(changed);
      expect(newDevice).toMatch(/^device=usr_/);
      expect((await t.send('GET', '/api/session', { cookie: laptopSession })).status).toBe(401);
      expect((await t.send('GET', '/api/session', { cookie: here })).status).toBe(200);
      // Someone spends the account's count from browsers it does not know: only a device cookie made after the change
      // still counts as the account's own browser.
      for (let attempt = 1; attempt <= 11; attempt++) await t.send('POST', '/api/session', { body: { name: 'ada', password: `wrong guess ${attempt}` } });
      const signIn = (device: string) => t.send('POST', '/api/session', { cookie: device, body: { name: 'ada', password: NEW_PASSWORD } });
      expect((await signIn(laptopDevice)).status).toBe(429);
      expect((await signIn(hereDevice)).status).toBe(429);
      expect((await signIn(newDevice)).status).toBe(200);
    } finally {
      await t.store.close();
    }
  });

  it('leaves API keys working unless the change asks to revoke them, then revokes every active one with its event', async () => {
    const t = await open();
    try {
      const { cookie, userId } = await t.signUp('ada');
      const made = async () => {
        const { key, digest, hint } = generateApiKey();
        await t.store.createKey(userId, digest, hint, new Date(t.clock.now).toISOString(), { source: 'web', name: 'k' });
        return key;
      };
      const kept = await made();
      expect((await changePassword(t, cookie, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(204);
      expect((await t.callPublicApi(kept)).status).toBe(200);
      const other = await made();
      const changed = await changePassword(t, cookie, { currentPassword: NEW_PASSWORD, newPassword: 'granite tulip seventy otter', revokeKeys: true });
      expect(changed.status, changed.text).toBe(204);
      for (const key of [kept, other]) expect((await t.callPublicApi(key)).status).toBe(401);
      const events = await t.send('GET', '/api/key-events', { cookie });
      expect(events.json.events.filter((event: { type: string; source: string }) => event.type === 'revoked' && event.source === 'web')).toHaveLength(2);
    } finally {
      await t.store.close();
    }
  });
});

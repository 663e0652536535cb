/**
 * Text a database cannot take is the client's mistake, so it is a 422, never a 500 (issue 20, finding 8):
 * a U+0000 in a name, a cursor whose time `Date.parse` reads but PostgreSQL does not. On both engines, the
 * web application as `npm start` runs it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { UnstorableInput } from '../../src/store/store.js';
import { freshDatabase } from '../helpers/postgres.js';
import { createTestWebApp, PASSWORD } from '../helpers/web-app.js';

const engines = [
  { name: 'SQLite', databaseUrl: async (): Promise<string | undefined> => undefined },
  { name: 'PostgreSQL', databaseUrl: async (): Promise<string | undefined> => freshDatabase('bad-text') },
];

const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

/** Times `Date.parse` takes that are not the RFC 3339 text a cursor holds; PostgreSQL refuses the first five. */
const LOOSE_TIMES = ['0', '1 2', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '2026-02-30T00:00:00.000Z', '2026-01-01', '2026-01-01T00:00:00Z'];

describe.each(engines)('bad text on $name', (engine) => {
  // One app and user for the engine: each case below changes nothing it can see.
  let app: Promise<Awaited<ReturnType<typeof createTestWebApp>> & { cookie: string }> | undefined;
  afterAll(async () => {
    if (app) await (await app).store.close();
  });
  function signedIn() {
    app ??= (async () => {
      const databaseUrl = await engine.databaseUrl();
      const t = await createTestWebApp(databaseUrl ? { databaseUrl } : {});
      const { cookie } = await t.signUp('ada');
      return { ...t, cookie };
    })();
    return app;
  }

  it('refuses a key name with U+0000 with 422 at /name, and makes no key', async () => {
    const t = await signedIn();
    for (const name of ['a\u0000b', '\u0000', ' \u0000 ']) {
      const response = await t.send('POST', '/api/keys', { cookie: t.cookie, body: { name } });
      expect(response.status, response.text).toBe(422);
      expect(response.json.errors).toEqual([expect.objectContaining({ in: 'body', pointer: '/name' })]);
    }
    expect((await t.send('GET', '/api/keys', { cookie: t.cookie })).json.keys).toEqual([]);
  });

  it('refuses a sign-in or sign-up name with U+0000 with 422 at /name', async () => {
    const t = await signedIn();
    for (const path of ['/api/session', '/api/users']) {
      const response = await t.send('POST', path, { body: { name: 'ada\u0000', password: PASSWORD } });
      expect(response.status, `${path}: ${response.text}`).toBe(422);
      expect(response.json.errors).toEqual([expect.objectContaining({ in: 'body', pointer: '/name' })]);
    }
  });

  it.each(LOOSE_TIMES)('refuses a key-event cursor whose time is %j with 422 at /cursor', async (time) => {
    const t = await signedIn();
    const response = await t.send('GET', `/api/key-events?cursor=${cursorOf(`${time}|evt_0000000000000000`)}`, { cookie: t.cookie });
    expect(response.status, response.text).toBe(422);
    expect(response.json.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '/cursor' })]);
  });

  it.each(LOOSE_TIMES)('refuses a key-list cursor whose time is %j with 422 at /cursor', async (time) => {
    const t = await signedIn();
    for (const cursor of [`${time}|1|2026-01-01T00:00:00.000Z|key_0000000000000000`, `2026-01-01T00:00:00.000Z|1|${time}|key_0000000000000000`]) {
      const response = await t.send('GET', `/api/keys?cursor=${cursorOf(cursor)}`, { cookie: t.cookie });
      expect(response.status, response.text).toBe(422);
      expect(response.json.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '/cursor' })]);
    }
  });

  it('takes a cursor at the edges of the times both databases hold', async () => {
    const t = await signedIn();
    for (const time of ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      const events = await t.send('GET', `/api/key-events?cursor=${cursorOf(`${time}|evt_0000000000000000`)}`, { cookie: t.cookie });
      expect(events.status, events.text).toBe(200);
      const keys = await t.send('GET', `/api/keys?cursor=${cursorOf(`${time}|0|${time}|key_0000000000000000`)}`, { cookie: t.cookie });
      expect(keys.status, keys.text).toBe(200);
    }
  });
});

describe('a value the database refuses that the contract let through', () => {
  it('is answered 422 without errors, never 500, and logged as an error so the spec can be fixed', async () => {
    const t = await createTestWebApp();
    const { cookie } = await t.signUp('ada');
    t.store.createKey = async () => {
      throw new UnstorableInput('the database refused a value (SQLSTATE 22021)');
    };
    const response = await t.send('POST', '/api/keys', { cookie, body: { name: 'fine by the spec' } });
    expect(response.status, response.text).toBe(422);
    expect(response.json).toMatchObject({ type: 'urn:problem-type:validation-failed', status: 422 });
    expect(response.json.errors).toBeUndefined();
    expect(t.logs.filter((line) => line['level'] === 'error')).toEqual([expect.objectContaining({ reason: expect.stringContaining('SQLSTATE 22021') })]);
  });
});

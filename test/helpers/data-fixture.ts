/**
 * Data of every kind the store holds (users with passwords, keys live and revoked, their events, sessions,
 * items and shares), made through the store as the server makes it, and the checks that a copy holds all of
 * it: for the backup, restore and migrate:store tests and the test that follows docs/data.md.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { hashPassword } from '../../src/account/passwords.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import type { KeyEvent, Store } from '../../src/store/store.js';
import { findVisibleItem } from './visible-item.js';

export const FIXTURE_PASSWORD = 'correct horse battery staple, kept';

export interface MadeData {
  users: Array<{ id: string; name: string }>;
  /** Each user's live key, in clear (to authenticate with), and a revoked one. */
  keys: Array<{ userId: string; id: string; key: string; revokedKey: string; revokedId: string }>;
  sessions: Buffer[];
  items: string[];
  events: Map<string, KeyEvent[]>;
}

/** Makes `count` users with a password, two keys each (one revoked), a session, two items and a share. */
export async function makeData(store: Store, count: number, prefix = 'user'): Promise<MadeData> {
  const made: MadeData = { users: [], keys: [], sessions: [], items: [], events: new Map() };
  const at = () => new Date().toISOString();
  const hash = await hashPassword(FIXTURE_PASSWORD);
  for (let index = 0; index < count; index++) {
    const user = await store.createUser(`${prefix}${index}-${randomBytes(3).toString('hex')}`, at(), hash);
    made.users.push({ id: user.id, name: user.name });
    const live = generateApiKey();
    const liveKey = await store.createKey(user.id, live.digest, live.hint, at(), { source: 'web', name: 'live' });
    const revoked = generateApiKey();
    const revokedKey = await store.createKey(user.id, revoked.digest, revoked.hint, at(), { source: 'cli', name: 'revoked' });
    await store.revokeKey(revokedKey.id, at(), { source: 'cli' });
    made.keys.push({ userId: user.id, id: liveKey.id, key: live.key, revokedKey: revoked.key, revokedId: revokedKey.id });
    const digest = randomBytes(32);
    await store.createSession(user.id, digest, at(), new Date(Date.now() + 86_400_000).toISOString());
    made.sessions.push(digest);
    const item = await store.createItem(user.id, `item of ${user.name}`, at());
    made.items.push(item.id);
    const first = made.users[0];
    if (first && first.id !== user.id) await store.shareItem(item.id, first.id, at());
    made.events.set(user.id, await store.listKeyEvents(user.id, { limit: 100 }));
  }
  return made;
}

/** The copy holds every user, key (revoked ones still revoked), event, session and item that was made. */
export async function expectAllPresent(store: Store, made: MadeData): Promise<void> {
  for (const user of made.users) {
    expect((await store.findUserCredential(user.name))?.passwordHash, user.name).toMatch(/^\$argon2id\$/);
    expect((await store.listKeyEvents(user.id, { limit: 100 })).map((event) => event.id)).toEqual(
      expect.arrayContaining((made.events.get(user.id) ?? []).map((event) => event.id)),
    );
  }
  for (const key of made.keys) {
    const keys = await store.listKeys(key.userId);
    expect(keys.find((summary) => summary.id === key.id)?.revokedAt).toBeNull();
    expect(keys.find((summary) => summary.id === key.revokedId)?.revokedAt).not.toBeNull();
  }
  for (const digest of made.sessions) expect(await store.findSessionByDigest(digest)).toBeDefined();
  const owner = made.users[0];
  for (const [index, itemId] of made.items.entries()) {
    const itemOwner = made.users[index];
    if (itemOwner) expect(await findVisibleItem(store, itemId, itemOwner.id), itemId).toBeDefined();
    if (owner) expect(await findVisibleItem(store, itemId, owner.id), `${itemId} shared`).toBeDefined();
  }
}

/** Against a running server: each live key works (200), each revoked key is refused (401), and each user signs in with their password. */
export async function expectCredentialsWork(server: { url: string; webUrl: string }, made: MadeData): Promise<void> {
  for (const key of made.keys) {
    expect((await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${key.key}` } })).status).toBe(200);
    expect((await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${key.revokedKey}` } })).status).toBe(401);
  }
  for (const user of made.users.slice(0, 2)) {
    const signIn = await fetch(`${server.webUrl}/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: user.name, password: FIXTURE_PASSWORD }),
    });
    expect(signIn.status, user.name).toBe(200);
  }
}

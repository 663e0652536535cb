/**
 * Secret rings and the check that instances agree (docs/data.md, "Secrets"): each instance registers what it
 * signs with and accepts; one that does not accept what a running older one signs, or signs what it does not
 * accept, is told and stays out of the register, while the older ones stay in agreement. The rotation the guide
 * gives (add last, move first, remove) never disagrees.
 */
import { describe, expect, it, vi } from 'vitest';
import { CursorCodec } from '../../src/server/cursor.js';
import { openStore } from '../../src/store/open-store.js';
import { checkSecrets, fingerprint, loadSecrets, SECRETS_REFRESH_MS, SECRETS_STALE_MS } from '../../src/store/secrets.js';
import type { Store } from '../../src/store/store.js';

const OLD = Buffer.from('o'.repeat(32));
const NEW = Buffer.from('n'.repeat(32));
const state = { scope: 'own', userId: 'usr_aaaaaaaaaaaaaaaa', sort: 'asc' } as const;

const NOW = Date.parse('2026-11-26T00:00:00.000Z');
const older = { id: 'older', since: NOW - 10_000 };
const newer = { id: 'newer', since: NOW - 1_000 };
const rings = (store: Store, list: Buffer[] | undefined) => loadSecrets(store, list ? { cursor: list } : {});

async function agreement(first: Buffer[] | undefined, second: Buffer[] | undefined) {
  const store = await openStore({ databasePath: ':memory:' });
  try {
    expect((await checkSecrets(store, await rings(store, first), older, NOW)).ok).toBe(true);
    return await checkSecrets(store, await rings(store, second), newer, NOW);
  } finally {
    await store.close();
  }
}

describe('secret rings', () => {
  it('sign with the first secret and verify with any listed', () => {
    const cursor = new CursorCodec({ current: OLD, all: [OLD] }).encode({
      ...state,
      after: { createdAt: '2026-01-01T00:00:00.000Z', id: 'itm_aaaaaaaaaaaaaaaa' },
    });
    expect(new CursorCodec({ current: NEW, all: [NEW, OLD] }).decode(cursor, state)).toMatchObject({ ok: true });
    expect(new CursorCodec({ current: NEW, all: [NEW] }).decode(cursor, state)).toMatchObject({ ok: false });
  });

  it('come from the database when none is configured, the same for every instance', async () => {
    const store = await openStore({ databasePath: ':memory:' });
    try {
      const [first, second] = [await loadSecrets(store, {}), await loadSecrets(store, {})];
      expect(first.cursor.current).toEqual(await store.secret('cursor'));
      expect(second).toEqual(first);
      expect((await loadSecrets(store, { cursor: [NEW, OLD] })).cursor).toEqual({ current: NEW, all: [NEW, OLD] });
    } finally {
      await store.close();
    }
  });

  it.each([
    { first: [OLD], second: [OLD], ok: true },
    { first: undefined, second: undefined, ok: true },
    // The rotation: add the new secret last, move it first, remove the old one; each step agrees with the one before.
    { first: [OLD], second: [OLD, NEW], ok: true },
    { first: [OLD, NEW], second: [NEW, OLD], ok: true },
    { first: [NEW, OLD], second: [NEW], ok: true },
    // Skipping a step: one instance signs with what the other does not know.
    { first: [OLD], second: [NEW, OLD], ok: false },
    { first: [NEW, OLD], second: [OLD], ok: false },
    { first: [OLD], second: [NEW], ok: false },
    { first: undefined, second: [NEW], ok: false },
  ])('an instance with $second after one with $first agrees: $ok', async ({ first, second, ok }) => {
    const result = await agreement(first, second);
    expect(result.ok).toBe(ok);
    if (!ok) {
      expect(result.reason).toMatch(/CURSOR_SECRETS .*docs\/data\.md, "Secrets"/);
      expect(result.reason).not.toContain(OLD.toString());
      expect(result.reason).not.toContain(NEW.toString());
    }
  });

  it('leave the instances already running ready, and the newcomer that disagrees out of the register', async () => {
    const store = await openStore({ databasePath: ':memory:' });
    try {
      expect((await checkSecrets(store, await rings(store, [OLD]), older, NOW)).ok).toBe(true);
      expect((await checkSecrets(store, await rings(store, [NEW]), newer, NOW)).ok).toBe(false);
      // The older instance's next check (a probe, or its refresh) still agrees: the newcomer is not in the register.
      expect((await checkSecrets(store, await rings(store, [OLD]), older, NOW + 1_000)).ok).toBe(true);
      // A third instance, given the running list, agrees with the older one.
      expect((await checkSecrets(store, await rings(store, [OLD]), { id: 'third', since: NOW }, NOW + 2_000)).ok).toBe(true);
      // Once the old list's instances stop refreshing, their entries go stale, and the new list is taken.
      const later = NOW + 2_000 + SECRETS_STALE_MS + 1;
      expect((await checkSecrets(store, await rings(store, [NEW]), newer, later)).ok).toBe(true);
      expect((await checkSecrets(store, await rings(store, [NEW]), { id: 'fourth', since: later }, later)).ok).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('refresh an entry at most every half refresh period, however often they are probed', async () => {
    const store = await openStore({ databasePath: ':memory:' });
    try {
      const ring = await rings(store, [OLD]);
      const writes = vi.spyOn(store, 'writeMeta');
      for (let probe = 0; probe < 10; probe++) expect((await checkSecrets(store, ring, older, NOW + probe * 1_000)).ok).toBe(true);
      // At 0 s only: the next write is due once half of SECRETS_REFRESH_MS (10 s) has passed.
      expect(writes).toHaveBeenCalledTimes(1);
      expect((await checkSecrets(store, ring, older, NOW + SECRETS_REFRESH_MS / 2)).ok).toBe(true);
      expect(writes).toHaveBeenCalledTimes(2);
    } finally {
      await store.close();
    }
  });

  it('are told apart by fingerprints that do not give the secret away', () => {
    expect(fingerprint(OLD)).not.toEqual(fingerprint(NEW));
    expect(fingerprint(OLD)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});

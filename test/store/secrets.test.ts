/**
 * Secret rings and the check that instances agree (docs/data.md, "Secrets"): each instance publishes what it
 * signs with and accepts; one that does not accept what another signs, or signs what another does not accept,
 * is told. The rotation the guide gives (add last, move first, remove) never disagrees.
 */
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../../src/server/cursor.js';
import { openStore } from '../../src/store/open-store.js';
import { fingerprint, loadSecrets, publishSecrets, secretsAgreement } from '../../src/store/secrets.js';

const OLD = Buffer.from('o'.repeat(32));
const NEW = Buffer.from('n'.repeat(32));
const state = { scope: 'own', userId: 'usr_aaaaaaaaaaaaaaaa', sort: 'asc' } as const;

async function agreement(first: Buffer[] | undefined, second: Buffer[] | undefined) {
  const store = await openStore({ databasePath: ':memory:' });
  try {
    await publishSecrets(store, await loadSecrets(store, first ? { cursor: first } : {}));
    return await secretsAgreement(store, await loadSecrets(store, second ? { cursor: second } : {}));
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

  it('are told apart by fingerprints that do not give the secret away', () => {
    expect(fingerprint(OLD)).not.toEqual(fingerprint(NEW));
    expect(fingerprint(OLD)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});

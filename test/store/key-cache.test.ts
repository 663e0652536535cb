import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { KeyCache } from '../../src/store/key-cache.js';
import type { KeyCredential } from '../../src/store/store.js';

const credential = (id: string): KeyCredential => ({ id, userId: 'u1', revokedAt: null, expiresAt: null, rolledAt: null, lastUsedAt: null });

describe('the one key cache', () => {
  it('knows a key, knows a digest that is no key, and says when it does not know', () => {
    const cache = new KeyCache();
    const [known, unknown, unseen] = [generateApiKey().digest, generateApiKey().digest, generateApiKey().digest];
    cache.remember(known, credential('k1'));
    cache.remember(unknown, undefined);
    expect(cache.get(known)?.id).toBe('k1');
    expect(cache.get(unknown)).toBeNull();
    expect(cache.get(unseen)).toBeUndefined();
  });

  it('keeps a real key through a flood of made-up ones', () => {
    const cache = new KeyCache();
    const real = generateApiKey().digest;
    cache.remember(real, credential('k1'));
    for (let i = 0; i < 25_000; i++) cache.remember(generateApiKey().digest, undefined);
    expect(cache.get(real)?.id).toBe('k1');
  });

  it('keeps a last use in step, and forgets everything at once', () => {
    const cache = new KeyCache();
    const digest = generateApiKey().digest;
    cache.remember(digest, credential('k1'));
    cache.touched('k1', '2026-01-01T00:01:00.000Z');
    expect(cache.get(digest)?.lastUsedAt).toBe('2026-01-01T00:01:00.000Z');
    cache.clear();
    expect(cache.get(digest)).toBeUndefined();
  });
});

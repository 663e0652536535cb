/**
 * The key cache's hit rate on one instance while another instance on the same PostgreSQL makes and revokes keys
 * (an operator's create/revoke load, issue 33): `npm run bench:key-churn`. Instance A checks its users' keys
 * round after round, as the public API does on every request; instance B makes a key and revokes it between
 * A's rounds. Printed: A's cache hits and misses over the run (`Store.stats()`), and how fast A saw a revocation
 * of one of its own keys made on B. Each key write on B used to make A forget every key; now it forgets that key.
 */
import { generateApiKey } from '../../src/keys/api-key.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { startLocalPostgres } from '../cluster/local-postgres.js';

const KEYS = 50;
const ROUNDS = 200;
const at = () => new Date().toISOString();

const server = await startLocalPostgres({ prefix: 'bench-key-churn-' });
const stores: Store[] = [];
try {
  const url = await server.createDatabase('churn');
  const [a, b] = [await openStore({ databasePath: ':unused:', databaseUrl: url }), await openStore({ databasePath: ':unused:', databaseUrl: url })];
  stores.push(a, b);
  const user = await b.createUser('operator', at());
  const keys: Array<{ digest: Buffer; id: string }> = [];
  for (let index = 0; index < KEYS; index++) {
    const { digest, hint } = generateApiKey();
    keys.push({ digest, id: (await b.createKey(user.id, digest, hint, at())).id });
  }
  // Warm A's cache, then count from zero.
  for (const key of keys) await a.findKeyByDigest(key.digest);
  const start = a.stats?.().keyCache ?? { hits: 0, misses: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const { digest, hint } = generateApiKey();
    const made = await b.createKey(user.id, digest, hint, at());
    await b.revokeKey(made.id, at());
    // The notifications reach A's listener while it serves the next round.
    await new Promise((resolve) => setTimeout(resolve, 2));
    for (const key of keys) await a.findKeyByDigest(key.digest);
  }
  const end = a.stats?.().keyCache ?? { hits: 0, misses: 0 };
  const hits = end.hits - start.hits;
  const misses = end.misses - start.misses;

  // A revocation on B of a key A holds: how long until A answers it revoked.
  const victim = keys[0];
  if (!victim) throw new Error('no key');
  await b.revokeKey(victim.id, at());
  const revokedAt = performance.now();
  let seenMs = Number.NaN;
  for (let tries = 0; tries < 5_000; tries++) {
    if ((await a.findKeyByDigest(victim.digest))?.revokedAt) {
      seenMs = performance.now() - revokedAt;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  console.log(
    JSON.stringify({
      keys: KEYS,
      rounds: ROUNDS,
      writesOnB: 2 * ROUNDS,
      hits,
      misses,
      hitRate: Number((hits / (hits + misses)).toFixed(3)),
      revocationSeenMs: Math.round(seenMs),
    }),
  );
} finally {
  for (const store of stores) await store.close();
  server.stop();
}

/**
 * The service's secrets as rings (docs/adr/0029-secrets-from-outside.md): the newest signs, every one still
 * listed verifies. From the environment when configured (`config/secrets.ts`), else the one the database
 * generated. Each instance publishes, beside the secrets in `meta`, a fingerprint of what it signs with and of
 * what it accepts, so that instances given different lists find out: at start, and on every readiness check.
 */
import { createHmac } from 'node:crypto';
import { type ConfiguredSecrets, SECRET_VARIABLES, type SecretName } from '../config/secrets.js';
import type { Store } from './store.js';

/** The secrets of one name: `current` signs, each of `all` (current first) verifies. */
export interface SecretRing {
  current: Buffer;
  all: readonly Buffer[];
}

/** Where the apps get their secrets from; by default the database's, one secret per name. */
export type SecretSource = (name: SecretName) => Promise<SecretRing>;

/** The database's generated secret of each name, as a ring of one: the behaviour without any configured. */
export function databaseSecrets(store: Store): SecretSource {
  return async (name) => {
    const secret = await store.secret(name);
    return { current: secret, all: [secret] };
  };
}

/** Every secret's ring: the configured list, else the database's own. */
export async function loadSecrets(store: Store, configured: ConfiguredSecrets): Promise<Record<SecretName, SecretRing>> {
  const rings = {} as Record<SecretName, SecretRing>;
  for (const name of Object.keys(SECRET_VARIABLES) as SecretName[]) {
    const list = configured[name];
    const [current] = list ?? [];
    rings[name] = list && current ? { current, all: list } : await databaseSecrets(store)(name);
  }
  return rings;
}

/** Who signs with what and accepts what, as fingerprints: a keyed hash that tells secrets apart without revealing them. */
interface Published {
  signs: string;
  accepts: string[];
}

const PUBLISHED = (name: SecretName) => `secrets-in-use:${name}`;

export function fingerprint(secret: Buffer): string {
  return createHmac('sha256', secret).update('bearer-list-api secret fingerprint v1').digest('base64url').slice(0, 16);
}

function published(ring: SecretRing): Published {
  return { signs: fingerprint(ring.current), accepts: ring.all.map(fingerprint) };
}

/**
 * Whether this instance's secrets agree with those the latest other instance to start published: each accepts
 * what the other signs. `reason` names the secret's variable and what to do; never a secret.
 */
export async function secretsAgreement(store: Store, rings: Record<SecretName, SecretRing>): Promise<{ ok: boolean; reason?: string }> {
  const problems: string[] = [];
  for (const [name, ring] of Object.entries(rings) as Array<[SecretName, SecretRing]>) {
    const stored = await store.readMeta(PUBLISHED(name));
    if (!stored) continue;
    let theirs: Published;
    try {
      theirs = JSON.parse(stored.toString('utf8')) as Published;
    } catch {
      continue;
    }
    const mine = published(ring);
    const variable = SECRET_VARIABLES[name];
    if (!mine.accepts.includes(theirs.signs))
      problems.push(`another instance signs with a ${variable} secret this one does not accept (fingerprint ${theirs.signs})`);
    if (!theirs.accepts.includes(mine.signs))
      problems.push(`another instance does not accept the ${variable} secret this one signs with (fingerprint ${mine.signs})`);
  }
  if (problems.length === 0) return { ok: true };
  return {
    ok: false,
    reason: `${problems.join('; ')}: give every instance the same list, adding a new secret last, then moving it first, then removing the old one (docs/data.md, "Secrets")`,
  };
}

/** Publishes this instance's fingerprints, for the instances that check against it. */
export async function publishSecrets(store: Store, rings: Record<SecretName, SecretRing>): Promise<void> {
  for (const [name, ring] of Object.entries(rings) as Array<[SecretName, SecretRing]>)
    await store.writeMeta(PUBLISHED(name), Buffer.from(JSON.stringify(published(ring))));
}

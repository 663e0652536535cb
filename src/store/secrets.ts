/**
 * The service's secrets as rings (docs/adr/0029-secrets-from-outside.md): the newest signs, every one still
 * listed verifies. From the environment when configured (`config/secrets.ts`), else the one the database
 * generated. Each instance registers, beside the secrets in `meta`, a fingerprint of what it signs with and of
 * what it accepts, so that an instance given a list the running ones disagree with finds out (`checkSecrets`).
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

/**
 * An HMAC of a value under the current secret of `name`: what the database keeps for a count by who it is for (a
 * client's address, an account's name, a session), so that no address, name or token is written to disk in clear.
 * The secret is read once; a failed read (the database away) is tried again next time. A rotation starts the counts
 * afresh.
 */
export function keyedDigest(secrets: SecretSource, name: SecretName): (value: string) => Promise<string> {
  let secret: Promise<Buffer> | undefined;
  return async (value) => {
    secret ??= secrets(name).then(
      (ring) => ring.current,
      (error: unknown) => {
        secret = undefined;
        throw error;
      },
    );
    return createHmac('sha256', await secret)
      .update(value)
      .digest('base64url');
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

/** One instance's entry in the register: its fingerprints, when it started, and when it last said it is running. */
interface Entry {
  secrets: Partial<Record<SecretName, Published>>;
  since: number;
  at: number;
}

/** One instance of the server, as the register knows it: a random id, and when it started (the older one wins a disagreement). */
export interface SecretsInstance {
  id: string;
  since: number;
}

/** The register of instances and their fingerprints, one `meta` value for every instance on the database. */
const REGISTER = 'secrets-in-use';

/** An entry not refreshed for this long is an instance that is gone (each refreshes every `SECRETS_REFRESH_MS`). */
export const SECRETS_STALE_MS = 60_000;
/** How often a running instance refreshes its entry (and checks again), probes or not. */
export const SECRETS_REFRESH_MS = 20_000;

export function fingerprint(secret: Buffer): string {
  return createHmac('sha256', secret).update('bearer-list-api secret fingerprint v1').digest('base64url').slice(0, 16);
}

function published(ring: SecretRing): Published {
  return { signs: fingerprint(ring.current), accepts: ring.all.map(fingerprint) };
}

async function readRegister(store: Store): Promise<Record<string, Entry>> {
  const stored = await store.readMeta(REGISTER);
  if (!stored) return {};
  try {
    const parsed = JSON.parse(stored.toString('utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, Entry>) : {};
  } catch {
    return {};
  }
}

/**
 * Whether this instance's secrets agree with those of every running instance that started before it (each
 * accepts what the other signs), and, when they do, its entry in the register, written or refreshed. An
 * instance that disagrees is left out of the register: the instances already serving stay ready, and the one
 * given another list is not ready (`/readyz`), which stops a rolling deployment at it. Run at start, on every
 * readiness check and every `SECRETS_REFRESH_MS`. `reason` names the secret's variable and what to do; never a
 * secret. Once every instance of the old list has stopped, their entries go stale and the new list is taken.
 */
export async function checkSecrets(
  store: Store,
  rings: Record<SecretName, SecretRing>,
  self: SecretsInstance,
  now = Date.now(),
): Promise<{ ok: boolean; reason?: string }> {
  const register = await readRegister(store);
  const mine = Object.fromEntries((Object.entries(rings) as Array<[SecretName, SecretRing]>).map(([name, ring]) => [name, published(ring)])) as Record<
    SecretName,
    Published
  >;
  const problems = new Set<string>();
  for (const [id, entry] of Object.entries(register)) {
    const fresh = typeof entry?.at === 'number' && now - entry.at <= SECRETS_STALE_MS;
    const older = typeof entry?.since === 'number' && (entry.since < self.since || (entry.since === self.since && id < self.id));
    if (id === self.id || !fresh || !older) continue;
    for (const [name, ours] of Object.entries(mine) as Array<[SecretName, Published]>) {
      const theirs = entry.secrets?.[name];
      if (!theirs) continue;
      const variable = SECRET_VARIABLES[name];
      if (!ours.accepts.includes(theirs.signs))
        problems.add(`an instance running before this one signs with a ${variable} secret this one does not accept (fingerprint ${theirs.signs})`);
      if (!theirs.accepts?.includes(ours.signs))
        problems.add(`an instance running before this one does not accept the ${variable} secret this one signs with (fingerprint ${ours.signs})`);
    }
  }
  if (problems.size > 0)
    return {
      ok: false,
      reason: `${[...problems].join('; ')}: give every instance the same list, adding a new secret last, then moving it first, then removing the old one (docs/data.md, "Secrets")`,
    };
  const kept = Object.fromEntries(
    Object.entries(register).filter(([id, entry]) => id !== self.id && typeof entry?.at === 'number' && now - entry.at <= SECRETS_STALE_MS),
  );
  // A probe every second must not mean a write every second: an entry refreshed lately, with nothing stale to drop, stands.
  const own = register[self.id];
  const recent = own !== undefined && now - own.at < SECRETS_REFRESH_MS / 2 && JSON.stringify(own.secrets) === JSON.stringify(mine);
  if (recent && Object.keys(kept).length === Object.keys(register).length - 1) return { ok: true };
  kept[self.id] = { secrets: mine, since: self.since, at: now };
  await store.writeMeta(REGISTER, Buffer.from(JSON.stringify(kept)));
  return { ok: true };
}

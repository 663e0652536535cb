import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ConfiguredSecrets } from '../config/secrets.js';
import type { ReadinessCheck } from '../ops/readiness.js';
import { checkSecrets, loadSecrets, SECRETS_REFRESH_MS, type SecretSource } from '../store/secrets.js';
import type { Store } from '../store/store.js';

/** The secrets this instance signs with, and whether the other instances on its database sign with the same. */
export interface SecretsAgreement {
  secrets: SecretSource;
  /** The readiness check `secrets`: not ready while another running instance was given other lists. */
  check: ReadinessCheck;
  /** Stops asking the database (the server is closing). */
  stop(): void;
}

/**
 * The secrets: the environment's lists where given, else the database's. An instance given a list that the
 * instances already running disagree with is told here, and is not ready while they run (`checkSecrets`).
 */
export async function agreeOnSecrets(store: Store, configured: ConfiguredSecrets, logger: Logger): Promise<SecretsAgreement> {
  const rings = await loadSecrets(store, configured);
  const instance = { id: randomUUID(), since: Date.now() };
  const checkOurs = () => checkSecrets(store, rings, instance);
  let agreement = await checkOurs();
  if (!agreement.ok) logger.warn({ reason: agreement.reason }, 'secrets disagree with another instance on this database');
  /** Asks the database again, at most once a second however many probes call; while it is away, the last answer stands (ADR 0034). */
  let checkedAt = Date.now();
  const refresh = async () => {
    if (Date.now() - checkedAt < 1_000) return;
    checkedAt = Date.now();
    agreement = await checkOurs().catch(() => agreement);
  };
  // Refreshed without probes too: an entry not refreshed for a minute is an instance that is gone.
  const timer = setInterval(() => void refresh(), SECRETS_REFRESH_MS);
  timer.unref();
  return {
    secrets: async (name) => rings[name],
    check: async () => {
      await refresh();
      return agreement.ok ? undefined : agreement.reason;
    },
    stop: () => clearInterval(timer),
  };
}

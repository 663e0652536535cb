/**
 * Secrets from outside the database (docs/adr/0029-secrets-from-outside.md): each of the service's signing keys
 * may come from an environment variable or from a file named by `<VARIABLE>_FILE`, as Docker and Kubernetes
 * mount secrets. The value is a list, newest first, separated by newlines or commas: the first signs, the
 * others are still accepted until they are removed, so a key is rotated without ending what it signed. Unset,
 * the secret the database generated on first use stays (the embedded default needs no setup).
 */
import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from './config-error.js';

/** Each secret the service keeps, by its name in the store, and the variable that may give it instead. */
export const SECRET_VARIABLES = {
  /** Signs the public API's page cursors. */
  cursor: 'CURSOR_SECRETS',
  /** Signs the web application's device cookies (the sign-in's "known browser"). */
  'device-cookies': 'DEVICE_COOKIE_SECRETS',
  /** Keys the HMAC under which sign-in and sign-up attempts are counted (names and addresses never stored in clear). */
  'failure-keys': 'SIGN_IN_COUNTER_SECRETS',
} as const;

export type SecretName = keyof typeof SECRET_VARIABLES;

/** The secrets the environment gives, newest first; a name left out uses the database's. */
export type ConfiguredSecrets = Partial<Record<SecretName, readonly Buffer[]>>;

/** The shortest secret taken: 32 characters, e.g. `openssl rand -base64 32` (44). */
export const MIN_SECRET_CHARACTERS = 32;

/** Reads every `*_SECRETS` and `*_SECRETS_FILE` variable; a bad one is a `ConfigError` that never quotes a secret. */
export function readSecrets(env: NodeJS.ProcessEnv, readFile: (path: string) => string = (path) => readFileSync(path, 'utf8')): ConfiguredSecrets {
  const secrets: ConfiguredSecrets = {};
  for (const [name, variable] of Object.entries(SECRET_VARIABLES) as Array<[SecretName, string]>) {
    const value = env[variable];
    const file = env[`${variable}_FILE`];
    if (value && file) throw new ConfigError(`set ${variable} or ${variable}_FILE, not both`);
    let text: string | undefined = value || undefined;
    if (file) {
      try {
        text = readFile(file);
      } catch (error) {
        throw new ConfigError(`${variable}_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
    if (text === undefined) continue;
    const source = file ? `${variable}_FILE (${file})` : variable;
    const entries = text
      .split(/[\n,]/)
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length === 0) throw new ConfigError(`${source} holds no secret: give one or more, newest first, one per line or separated by commas`);
    for (const [index, entry] of entries.entries())
      if (entry.length < MIN_SECRET_CHARACTERS)
        throw new ConfigError(
          `${source}: secret ${index + 1} of ${entries.length} has ${entry.length} characters, fewer than ${MIN_SECRET_CHARACTERS} (make one with: openssl rand -base64 32)`,
        );
    if (new Set(entries).size !== entries.length) throw new ConfigError(`${source} lists the same secret twice`);
    secrets[name] = entries.map((entry) => Buffer.from(entry, 'utf8'));
  }
  return secrets;
}

/** Every variable naming a file that holds a secret: the signing secrets' and the database's. */
function secretFileVariables(): string[] {
  return [...Object.values(SECRET_VARIABLES).map((variable) => `${variable}_FILE`), 'DATABASE_URL_FILE', 'DATABASE_PASSWORD_FILE'];
}

/**
 * A warning for each secret file other accounts of the machine may read, as the database's own files are held to
 * 0600: whoever reads it can sign cursors and device cookies, or reach the database. Readable by others is always
 * named; readable by a group only when this process is not in that group (Kubernetes mounts a Secret 0440 in the
 * pod's `fsGroup`, which the server runs in: that group is the server's own). A warning, not a refusal: a mounted
 * secret's mode is often the orchestrator's to set.
 */
export function secretFileWarnings(
  env: NodeJS.ProcessEnv,
  statOf: (path: string) => { mode: number; gid: number } | undefined = fileStat,
  ownGroups: readonly number[] = processGroups(),
): string[] {
  const warnings: string[] = [];
  for (const variable of secretFileVariables()) {
    const path = env[variable];
    if (!path) continue;
    const stat = statOf(path);
    if (stat === undefined) continue;
    const byOthers = (stat.mode & 0o007) !== 0;
    const byAnotherGroup = (stat.mode & 0o070) !== 0 && !ownGroups.includes(stat.gid);
    if (byOthers || byAnotherGroup)
      warnings.push(`${variable} names ${path}, which other accounts may read (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 it, or 400`);
  }
  return warnings;
}

function fileStat(path: string): { mode: number; gid: number } | undefined {
  try {
    const { mode, gid } = statSync(path);
    return { mode, gid };
  } catch {
    return undefined; // Unreadable: the variable's own check says so.
  }
}

function processGroups(): number[] {
  return [...(process.getgroups?.() ?? []), ...(process.getgid ? [process.getgid()] : [])];
}

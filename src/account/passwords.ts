import { type Algorithm, hash, type Options, verify } from '@node-rs/argon2';

/**
 * Argon2id with OWASP's minimum parameters (Password Storage Cheat Sheet):
 * 19 MiB of memory, 2 iterations, 1 degree of parallelism. About 40 ms a hash
 * on this project's machines. The parameters travel in each PHC string, so
 * raising them later still verifies old hashes.
 */
export const ARGON2_OPTIONS: Readonly<Options> = {
  // `Algorithm` is a const enum, which isolatedModules cannot read at run time; 2 is Argon2id.
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/** Hashes a password for storage (a PHC string: `$argon2id$v=19$m=19456,t=2,p=1$salt$hash`). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

let decoy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. With no hash (no such user, or a
 * user without a password), a decoy hash is checked instead, so the answer
 * takes as long as for a real user and timing does not tell which half was wrong.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    decoy ??= hashPassword('decoy password, never matched');
    await verify(await decoy, password);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

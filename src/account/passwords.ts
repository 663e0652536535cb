import { type Algorithm, hash, type Options, verify } from '@node-rs/argon2';
import { ApiError } from '../server/problems.js';

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

/**
 * Password hashes computed at once, each on a thread of libuv's pool (never on the event loop): one core's
 * worth at most, so a flood of sign-ins cannot take the CPU the public API needs, and 19 MiB of memory.
 */
export const CONCURRENT_HASHES = 1;
/** Sign-ups and sign-ins waiting for their hash at most (under a second at about 40 ms each); more are refused with 503. */
export const QUEUED_HASHES = 16;

/**
 * Runs password hashes through a bounded queue: `concurrent` at a time, `queued` more waiting, and past
 * that a 503 with `Retry-After` at once rather than a queue that grows with the flood. (A plain
 * concurrency limiter queues without bound; refusing is the point here.)
 */
export class HashQueue {
  readonly #concurrent: number;
  readonly #queued: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(options: { concurrent: number; queued: number }) {
    this.#concurrent = options.concurrent;
    this.#queued = options.queued;
  }

  /** Runs `work` when a slot is free; throws the 503 when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#concurrent) {
      if (this.#waiting.length >= this.#queued) {
        throw new ApiError('urn:problem-type:service-unavailable', 'Too many sign-ins are being checked at this moment. Try again in a second.', {
          headers: { 'Retry-After': '1' },
        });
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes to the next in line, or is freed.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

/** The process's one queue: the CPU it protects is the process's. */
const hashes = new HashQueue({ concurrent: CONCURRENT_HASHES, queued: QUEUED_HASHES });

/** Hashes a password for storage (a PHC string: `$argon2id$v=19$m=19456,t=2,p=1$salt$hash`). */
export function hashPassword(password: string): Promise<string> {
  return hashes.run(() => hash(password, ARGON2_OPTIONS));
}

let decoy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. With no hash (no such user, or a
 * user without a password), a decoy hash is checked instead, so the answer
 * takes as long as for a real user and timing does not tell which half was wrong.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    decoy ??= hash('decoy password, never matched', ARGON2_OPTIONS);
    const decoyHash = await decoy;
    await hashes.run(() => verify(decoyHash, password));
    return false;
  }
  try {
    return await hashes.run(() => verify(storedHash, password));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    return false;
  }
}

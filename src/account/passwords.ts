import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Algorithm, Options } from '@node-rs/argon2';
import { ApiError } from '../http/problems.js';
import { normalizePassword, type PasswordStrength } from './password-rule.js';

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
 * The parameters new hashes (and the decoy) are made with: `ARGON2_OPTIONS`, unless a test run lowered them with
 * `useHashParametersForTests`.
 */
let hashParameters: Readonly<Options> = ARGON2_OPTIONS;

/**
 * For test runs only, as Rails' `SecurePassword.min_cost` and Django's test password hashers: makes new hashes with
 * `parameters` (Argon2id still, and still verified from their PHC string), and `ARGON2_OPTIONS` again with no argument.
 * At 40 ms a hash, hashing was most of what the in-process account tests spent. Nothing the server reads (its
 * configuration, its environment) reaches this: `npm test`'s setup file calls it (`test/setup/`), while every server
 * process a test starts, and the tests of the hash queue and of the stored parameters, hash at OWASP's cost.
 */
export function useHashParametersForTests(parameters: Readonly<Options> = ARGON2_OPTIONS): void {
  hashParameters = parameters;
}

/**
 * Password hashes computed at once, on their own low-priority thread (never on the event loop): one core's
 * worth at most, and only what the public API leaves, so a flood of sign-ins cannot starve it; 19 MiB each.
 */
export const CONCURRENT_HASHES = 1;
/** Sign-ins waiting for their hash at most (under a second at about 40 ms each); more are refused with 503. */
export const QUEUED_HASHES = 16;
/**
 * Sign-ups waiting at most, in their own line; more are refused with 503. Eight: a flood of sign-ups from a few
 * addresses, each inside its limit and one at a time, still leaves a place for someone else's (with four, the soak's
 * four flooding addresses filled it and a newcomer got 503).
 */
export const QUEUED_SIGN_UPS = 8;
/** Password changes waiting at most, in a line of their own (a change needs a session, so these are few); more are refused with 503. */
export const QUEUED_PASSWORD_CHANGES = 4;
/**
 * Sign-ins served in a row at most while a sign-up or a password change waits: then one of those has its turn.
 * A sign-in waits at most one such job per this many sign-ins; a sign-up or change at the head of its line waits
 * at most this many sign-ins (and one job of the other line), about 200 ms at 40 ms a hash, however many sign-ins
 * are in line (issue 33: a storm of sign-ins to the attacker's own account made a sign-up wait 24 s).
 */
export const SIGN_INS_PER_TURN = 4;

/**
 * Which line a hash waits in: sign-ins, sign-ups, and password changes (the strength check, the current password
 * and the new hash of a change all wait in its own line, so a change is never behind a sign-in storm's line).
 */
export type HashLane = 'sign-in' | 'sign-up' | 'password-change';

const LANES: readonly HashLane[] = ['sign-in', 'sign-up', 'password-change'];

/** Clients whose latest turn the queue remembers; one forgotten counts as never served, which only moves it forward. */
const SERVED_CLIENTS = 10_000;

/**
 * Runs password hashes through bounded queues: `concurrent` at a time, and a line per lane with its own bound,
 * past which a 503 with `Retry-After` comes at once rather than a queue that grows with the flood. (A plain
 * concurrency limiter queues without bound; refusing is the point here.) The lines take turns: a free slot goes
 * to the longest-waiting sign-in, except that after `signInsPerTurn` sign-ins in a row a waiting password change
 * or sign-up goes next (those two alternate when both wait). So a flood of sign-ups fills its own line and keeps
 * a sign-in waiting at most one hash per `signInsPerTurn`, and a storm of sign-ins (which can be right passwords,
 * and so pass every failure count) keeps a sign-up or a password change waiting at most `signInsPerTurn` sign-ins.
 * Within a line, the job whose client (an address, an account) had a turn least recently goes first, the longest
 * waiting among equals: a few clients that send one job after another (a flood of sign-ups, each inside its limit)
 * cannot keep a newcomer, who has had no turn yet, behind all of them.
 */
export class HashQueue {
  readonly #concurrent: number;
  readonly #bounds: Readonly<Record<HashLane, number>>;
  readonly #signInsPerTurn: number;
  #running = 0;
  /** Sign-ins started since a sign-up or a password change last had its turn. */
  #signInsInRow = 0;
  /** Which of the other two lines had the latest turn, so they alternate. */
  #lastOther: HashLane = 'sign-up';
  readonly #waiting: Record<HashLane, Array<{ resume: () => void; client: string | undefined }>> = { 'sign-in': [], 'sign-up': [], 'password-change': [] };
  /** When each client last had a turn (a count of turns), most recent last; bounded, the oldest forgotten first. */
  readonly #served = new Map<string, number>();
  #turns = 0;

  constructor(options: { concurrent: number; queued: Readonly<Record<HashLane, number>>; signInsPerTurn?: number }) {
    this.#concurrent = options.concurrent;
    this.#bounds = options.queued;
    this.#signInsPerTurn = options.signInsPerTurn ?? SIGN_INS_PER_TURN;
  }

  /** How many wait in each line (for tests and the soak's report). */
  get waiting(): Readonly<Record<HashLane, number>> {
    return Object.fromEntries(LANES.map((lane) => [lane, this.#waiting[lane].length])) as Record<HashLane, number>;
  }

  /** Runs `work` when a slot is free and its turn comes; throws the 503 when its lane is full. `client` orders it within its line. */
  async run<T>(lane: HashLane, work: () => Promise<T>, client?: string): Promise<T> {
    if (this.#running >= this.#concurrent) {
      const line = this.#waiting[lane];
      if (line.length >= this.#bounds[lane]) {
        const what = lane === 'sign-in' ? 'sign-ins' : lane === 'sign-up' ? 'sign-ups' : 'password changes';
        throw new ApiError('urn:problem-type:service-unavailable', `Too many ${what} are being checked at this moment. Try again in a second.`, {
          headers: { 'Retry-After': '1' },
          reason: 'password-checks-busy',
        });
      }
      await new Promise<void>((resolve) => line.push({ resume: resolve, client }));
    } else {
      this.#running++;
      this.#count(lane, client);
    }
    try {
      return await work();
    } finally {
      // The slot passes to whoever's turn it is, or is freed.
      const next = this.#next();
      if (next) next();
      else this.#running--;
    }
  }

  /** Takes the next waiting job by the turns described above, and counts its turn. */
  #next(): (() => void) | undefined {
    const others: HashLane[] = this.#lastOther === 'sign-up' ? ['password-change', 'sign-up'] : ['sign-up', 'password-change'];
    const other = others.find((lane) => this.#waiting[lane].length > 0);
    const signIns = this.#waiting['sign-in'].length > 0;
    const lane = signIns && (other === undefined || this.#signInsInRow < this.#signInsPerTurn) ? 'sign-in' : other;
    if (lane === undefined) return undefined;
    const line = this.#waiting[lane];
    let chosen = 0;
    for (let index = 1; index < line.length; index++) if (this.#lastTurn(line[index]?.client) < this.#lastTurn(line[chosen]?.client)) chosen = index;
    const [job] = line.splice(chosen, 1);
    this.#count(lane, job?.client);
    return job?.resume;
  }

  #lastTurn(client: string | undefined): number {
    return client === undefined ? 0 : (this.#served.get(client) ?? 0);
  }

  #count(lane: HashLane, client: string | undefined): void {
    if (client !== undefined) {
      this.#served.delete(client);
      this.#served.set(client, ++this.#turns);
      if (this.#served.size > SERVED_CLIENTS) this.#served.delete(this.#served.keys().next().value as string);
    }
    if (lane === 'sign-in') {
      this.#signInsInRow++;
    } else {
      this.#signInsInRow = 0;
      this.#lastOther = lane;
    }
  }
}

/**
 * The hashing thread's code, as text: a worker made from a string loads the same under tsx, vitest and the
 * build in `dist/`, where a worker file would need a different path in each. It lowers its own scheduling
 * priority (on Linux a nice value belongs to a thread), so a hash takes only CPU the event loop leaves free:
 * on a core shared with the public API, a flood of sign-ins slows sign-in, not the API. It also estimates a
 * new password's strength with zxcvbn-ts (`password-rule.ts`), whose dictionaries it loads on first use.
 */
const HASHING_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { hashSync, verifySync } = require(workerData.argon2);
if (process.platform === 'linux') {
  try { require('node:os').setPriority(19); } catch {}
}
let zxcvbn;
function strength(password, userInputs) {
  if (!zxcvbn) {
    const { ZxcvbnFactory } = require(workerData.zxcvbn.core);
    const common = require(workerData.zxcvbn.common);
    const en = require(workerData.zxcvbn.en);
    zxcvbn = new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...en.dictionary }, graphs: common.adjacencyGraphs, ...workerData.zxcvbn.options });
  }
  const result = zxcvbn.check(password, userInputs);
  return { guessesLog10: result.guessesLog10, warning: result.feedback.warning };
}
parentPort.on('message', ({ id, kind, password, hash, options, userInputs }) => {
  try {
    const value = kind === 'hash' ? hashSync(password, options) : kind === 'verify' ? verifySync(hash, password) : strength(password, userInputs);
    parentPort.postMessage({ id, value });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

/**
 * zxcvbn-ts's options: the first 64 characters are estimated (a longer password is long enough, and a pattern
 * at its start is still found), and at most 12 l33t substitutions are tried: past either, its time grows to
 * seconds for crafted input (measured: 3.7 s for 256 characters of repeated l33t, 43 ms with these bounds).
 */
const ZXCVBN_OPTIONS = { maxLength: 64, l33tMaxSubstitutions: 12 };

type HashJob =
  | { kind: 'hash'; password: string; options: Options }
  | { kind: 'verify'; hash: string; password: string }
  | { kind: 'strength'; password: string; userInputs: string[] };

type JobValue = string | boolean | PasswordStrength;

/** One worker thread that hashes and verifies passwords, started on first use and not keeping the process alive. */
class HashingThread {
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<number, { resolve: (value: JobValue) => void; reject: (error: Error) => void }>();

  run(job: { kind: 'hash'; password: string; options: Options }): Promise<string>;
  run(job: { kind: 'verify'; hash: string; password: string }): Promise<boolean>;
  run(job: { kind: 'strength'; password: string; userInputs: string[] }): Promise<PasswordStrength>;
  run(job: HashJob): Promise<JobValue> {
    const worker = this.#start();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...job });
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const { resolve } = createRequire(import.meta.url);
    const worker = new Worker(HASHING_THREAD, {
      eval: true,
      workerData: {
        argon2: resolve('@node-rs/argon2'),
        zxcvbn: {
          core: resolve('@zxcvbn-ts/core'),
          common: resolve('@zxcvbn-ts/language-common'),
          en: resolve('@zxcvbn-ts/language-en'),
          options: ZXCVBN_OPTIONS,
        },
      },
    });
    worker.unref();
    worker.on('message', ({ id, value, error }: { id: number; value?: JobValue; error?: string }) => {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      if (error !== undefined) pending?.reject(new Error(error));
      else if (value !== undefined) pending?.resolve(value);
    });
    // A thread that fails or ends fails what it held; the next job starts a new one.
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the password hashing thread ended (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}

/** The process's one queue and thread: the CPU they protect is the process's. */
const hashes = new HashQueue({
  concurrent: CONCURRENT_HASHES,
  queued: { 'sign-in': QUEUED_HASHES, 'sign-up': QUEUED_SIGN_UPS, 'password-change': QUEUED_PASSWORD_CHANGES },
});
const thread = new HashingThread();

/**
 * Hashes a password for storage (a PHC string: `$argon2id$v=19$m=19456,t=2,p=1$salt$hash`).
 *
 * @param lane the line it waits in: `sign-up` (the default), `password-change`, or `sign-in` for a hash made again at sign-in.
 */
export function hashPassword(password: string, lane: HashLane = 'sign-up', client?: string): Promise<string> {
  return hashes.run(lane, () => thread.run({ kind: 'hash', password, options: { ...hashParameters } }), client);
}

/**
 * Estimates a new password's strength (zxcvbn-ts, on the hashing thread, in the sign-up line by default).
 *
 * @param password the password as it will be hashed (`normalizePassword`).
 * @param userInputs words of this account and service a guesser would try: the user name, the service's name.
 * @param lane the line it waits in: `sign-up`, or `password-change`.
 */
export function passwordStrength(password: string, userInputs: string[], lane: HashLane = 'sign-up'): Promise<PasswordStrength> {
  return hashes.run(lane, () => thread.run({ kind: 'strength', password, userInputs }));
}

/**
 * A new password's strength and, when `acceptable` says it keeps the rule, its hash, in one turn of `lane`'s line: a
 * sign-up or a password change waits its turn once for both, not twice (under a storm each wait is up to a turn of
 * sign-ins). The hash is made before the caller's later checks (a sign-up's count and name, a change's current
 * password); one they refuse wastes it, which their own limits bound.
 *
 * @param password the password as it will be hashed (`normalizePassword`).
 */
export function checkAndHashNewPassword(
  password: string,
  userInputs: string[],
  acceptable: (strength: PasswordStrength) => boolean,
  lane: HashLane = 'sign-up',
  client?: string,
): Promise<{ strength: PasswordStrength; hash: string | undefined }> {
  return hashes.run(
    lane,
    async () => {
      const strength = await thread.run({ kind: 'strength', password, userInputs });
      if (!acceptable(strength)) return { strength, hash: undefined };
      return { strength, hash: await thread.run({ kind: 'hash', password, options: { ...hashParameters } }) };
    },
    client,
  );
}

/** The decoy hash, made once per process (and again only if a test changed the parameters). */
let decoy: { parameters: Readonly<Options>; hash: Promise<string> } | undefined;

/** What a password check found: a match of the normalized password, of the password as typed (an older hash), or none. */
export type PasswordCheck = 'match' | 'match-as-typed' | 'no-match';

/**
 * Checks a password against a stored hash, in its normalized form (`normalizePassword`), and, when typing it
 * differs from that, as typed: a hash made before passwords were normalized was made from the text as typed
 * (the caller makes it again from the normalized form). With no hash (no such user, or a user without a
 * password), a decoy hash is checked instead, as many times, so the answer takes as long as for a real user
 * and timing does not tell which half was wrong. `lane` is the line it waits in: `sign-in`, or `password-change`;
 * `client` who it is for (an address, an account), which orders it within its line.
 */
export async function verifyPassword(
  storedHash: string | null | undefined,
  password: string,
  lane: HashLane = 'sign-in',
  client?: string,
): Promise<PasswordCheck> {
  const normalized = normalizePassword(password);
  const forms = normalized === password ? [normalized] : [normalized, password];
  if (!storedHash) {
    // Made once per process, outside the queue, so a full queue never leaves a failed decoy behind.
    if (decoy?.parameters !== hashParameters) {
      decoy = { parameters: hashParameters, hash: thread.run({ kind: 'hash', password: 'decoy password, never matched', options: { ...hashParameters } }) };
    }
    const decoyHash = await decoy.hash;
    await hashes.run(
      lane,
      async () => {
        for (const form of forms) await thread.run({ kind: 'verify', hash: decoyHash, password: form });
      },
      client,
    );
    return 'no-match';
  }
  try {
    return await hashes.run(
      lane,
      async () => {
        if (await thread.run({ kind: 'verify', hash: storedHash, password: normalized })) return 'match';
        if (forms.length > 1 && (await thread.run({ kind: 'verify', hash: storedHash, password }))) return 'match-as-typed';
        return 'no-match';
      },
      client,
    );
  } catch (error) {
    if (error instanceof ApiError) throw error;
    return 'no-match';
  }
}

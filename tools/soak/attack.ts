/**
 * `npm run soak -- --attack`: the combined attack of issue 20, all at once, against a running server
 * (public API and web application), while a legitimate user keeps using it:
 * - a flood of made-up keys (well-formed, valid checksum, unknown) from many client addresses;
 * - guesses at the legitimate user's password at sign-in, from several addresses;
 * - a flood of sign-ups from several addresses;
 * - a self sign-in storm (issue 33): the attacker signs in to an account of its own, with the right password,
 *   again and again from several addresses, each keeping the device cookie it gets;
 * - a same-address quota burn (issue 33): requests without a cookie to the account API from the legitimate user's
 *   own address, as others behind one NAT would send, spending that address's quota and failed-authentication budget;
 * - meanwhile the legitimate user's valid key is requested every `validIntervalMs` and must be served
 *   (2xx) in every second, and the same user signs in every `signInIntervalMs` from its own browser
 *   (keeping the device cookie its earlier sign-in got) and must succeed every time; it changes its password
 *   every `passwordChangeIntervalMs` (a session it started in a second browser just before, and one a sign-in
 *   with the old password racing the change got, must both be over after it: the password-change race), and
 *   someone new signs up every `legitimateSignUpIntervalMs`. Every one of these is answered in under 2 s.
 * - a /64 spread (issue 33, tools/soak/spread.ts): made-up keys and sign-ups from many addresses of one IPv6 /64,
 *   through a hop the target trusts as its proxy; the /64 must get one client's budgets, not one per address.
 * Traffic goes to the given URLs only; on loopback each flood connection is bound to its own 127.0.0.x.
 */

import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { type AccountSpecLimits, readLimits } from '../../src/contract/limits.js';
import { readContracts } from '../../src/contract/project.js';
import { ResponseChecker } from '../../src/contract/response-checker.js';
import { loadSpec } from '../../src/contract/spec.js';
import { generateApiKey } from '../../src/keys/api-key.js';
import { formatSpread, runSpread, type SpreadLimits, type SpreadReport, type SpreadTarget } from './spread.js';

export interface AttackOptions {
  /** Root URL of the public API. */
  url: string;
  /** Root URL of the web application (the account API is under `/api`). */
  webUrl: string;
  durationSeconds: number;
  /** Made-up-key requests in flight at once. */
  connections: number;
  /** How often the legitimate user's key is requested (default 75 ms). */
  validIntervalMs?: number;
  /** How often the legitimate user signs in (default 2,000 ms). */
  signInIntervalMs?: number;
  /** How often the legitimate user changes its password (default 5,000 ms). */
  passwordChangeIntervalMs?: number;
  /** How often a legitimate newcomer signs up, each from an address of its own (default 4,000 ms). */
  legitimateSignUpIntervalMs?: number;
  /**
   * Where the /64 spread goes (the target's URLs and the local address it trusts as its proxy), or why it is not
   * run: only a target known to trust a hop can be sent an IPv6 client from loopback. Default: not run.
   */
  spread?: SpreadTarget | { notRun: string };
  /** Called about once a second with the row of the second just ended. */
  onSecond?: (row: AttackSecond) => void;
}

/** The client addresses of each part, on loopback (Linux routes all of 127.0.0.0/8 to lo). */
export const ATTACK_ADDRESSES = {
  /** The legitimate user's browser and API client. */
  legitimate: '127.0.0.1',
  /** Password guessers, 127.0.0.2 to 127.0.0.9. */
  guessers: range(2, 9),
  /** Sign-up flooders, 127.0.0.10 to 127.0.0.13: four, each one sign-up at a time (the sign-up line holds eight: a newcomer still finds a place). */
  signUps: range(10, 13),
  /** Made-up keys: 127.0.0.14 to 127.0.0.254 and the legitimate user's own address, whose budget they spend too. */
  flood: ['127.0.0.1', ...range(14, 254)],
  /** The self sign-in storm: the attacker's account is made from 127.0.1.1, signed in to from 127.0.1.2 to 127.0.1.9. */
  stormAccount: '127.0.1.1',
  storm: range(2, 9, '127.0.1'),
  /** Legitimate newcomers, each signing up from the next of 127.0.2.1 to 127.0.2.254. */
  newcomers: range(1, 254, '127.0.2'),
  /**
   * The /64 spread's hop: a server the soak starts lists only this address in TRUSTED_PROXIES and reads the client
   * from X-Forwarded-For when the peer is it. No other part uses it (nor any 127.0.3.x), so no other part's
   * requests are read that way: they send no such header, and come from peers the server does not trust.
   */
  proxy: '127.0.3.1',
} as const;

function range(from: number, to: number, network = '127.0.0'): string[] {
  return Array.from({ length: to - from + 1 }, (_, index) => `${network}.${from + index}`);
}

/** The most a legitimate sign-in, sign-up or password change may take under the attack (issue 33's "under 2 s"). */
export const LEGITIMATE_MAX_MS = 2_000;

/** What happened in one whole second of the run. */
export interface AttackSecond {
  second: number;
  /** Made-up-key requests answered, by status (`error` for a socket error). */
  flood: Record<string, number>;
  /** The valid key: requests answered, of them 2xx, and the slowest in ms. */
  valid: { answered: number; served: number; maxMs: number };
  /** The legitimate user's sign-ins: tries, successes, the slowest in ms. */
  signIns: { tries: number; succeeded: number; maxMs: number };
  /** Guesses at the legitimate user's password, by status. */
  guesses: Record<string, number>;
  /** Sign-ups sent by the flood, by status (201 made, 429 refused). */
  signUps: Record<string, number>;
  /** The self sign-in storm's sign-ins, by status. */
  storm: Record<string, number>;
  /** The same-address quota burn's requests, by status. */
  burn: Record<string, number>;
  /** Legitimate newcomers' sign-ups: tries, made, the slowest in ms. */
  newcomers: { tries: number; made: number; maxMs: number };
  /** The legitimate user's password changes: tries, changed, the slowest in ms, and sessions still live after one. */
  changes: { tries: number; changed: number; maxMs: number; surviving: number };
  /** The /64 spread's made-up keys and sign-ups, by status (empty when it is not run). */
  spread: Record<string, number>;
  spreadSignUps: Record<string, number>;
}

/** A legitimate operation's answers: how many, how many as wanted, their latencies. */
interface LegitimateTally {
  tries: number;
  succeeded: number;
  statuses: Record<string, number>;
  latencyMs: { p50: number; max: number };
}

export interface AttackReport {
  url: string;
  webUrl: string;
  durationSeconds: number;
  addresses: { flood: number; guessers: number; signUps: number };
  flood: { requests: number; perSecond: number; statuses: Record<string, number> };
  validKey: {
    requests: number;
    served: number;
    statuses: Record<string, number>;
    latencyMs: { p50: number; p99: number; max: number };
    /** Fewest 2xx in any whole second, and the seconds with none. */
    minServedPerSecond: number;
    secondsWithoutService: number[];
  };
  signIns: {
    tries: number;
    succeeded: number;
    statuses: Record<string, number>;
    latencyMs: { p50: number; max: number };
    /** Whether the first sign-in, before the attack, gave the browser a device cookie (it keeps it for the rest). */
    deviceCookie: boolean;
  };
  guesses: { requests: number; unauthorized: number; tooMany: number; statuses: Record<string, number> };
  signUps: { requests: number; made: number; refused: number; statuses: Record<string, number> };
  /** The self sign-in storm: sign-ins to the attacker's own account, by status. */
  storm: { requests: number; statuses: Record<string, number> };
  /** The same-address quota burn: cookieless account-API requests from the legitimate user's address, by status. */
  burn: { requests: number; statuses: Record<string, number> };
  /** Legitimate newcomers' sign-ups (each must make its account, in under 2 s). */
  newcomers: LegitimateTally;
  /** The legitimate user's password changes (each must answer 204, in under 2 s). */
  passwordChanges: LegitimateTally & {
    /** Sessions checked after a change: one started just before it, and one a racing sign-in with the old password got. */
    sessionsChecked: number;
    /** Of them, still live after the change: must be 0. */
    sessionsSurviving: number;
    /** How the sign-ins racing a change (the old password, sent at once with the change) were answered. */
    racingSignIns: Record<string, number>;
  };
  /** The /64 spread: what one IPv6 /64 got from many of its addresses, against one client's budgets; or why it was not run. */
  spread: SpreadReport;
  /** 5xx answers to any part, in total. */
  serverErrors: number;
  /** Connection errors, by part and code. */
  socketErrors: Record<string, number>;
  /** Answers that break either contract, with up to five examples. */
  contractViolations: number;
  violationExamples: string[];
  perSecond: AttackSecond[];
  /**
   * True when the valid key was served in every second (and every request of it), every legitimate sign-in, sign-up
   * and password change succeeded in under 2 s, no session outlived a password change, no answer was a 5xx, and
   * the /64 spread (when run) got one client's budgets.
   */
  ok: boolean;
}

interface Answer {
  status: number;
  headers: Headers;
  body: string;
  setCookies: string[];
  ms: number;
}

type Part = 'flood' | 'valid' | 'signIn' | 'guess' | 'signUp' | 'storm' | 'burn' | 'newcomer' | 'change' | 'race' | 'spread';

/** A strong random password (zxcvbn-ts finds nothing to guess in it). */
const newPassword = () => `${randomBytes(18).toString('base64url')} soak`;
const newName = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One HTTP request with Node's client, from `localAddress` when given. Resolves with the answer, or
 * rejects with the socket error; gives up after `timeoutMs`.
 */
function send(
  url: URL,
  init: { method: string; headers?: Record<string, string>; body?: string; agent: Agent; localAddress?: string; timeoutMs?: number },
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: init.method,
        agent: init.agent,
        headers: { ...init.headers, ...(init.body !== undefined && { 'Content-Length': String(Buffer.byteLength(init.body)) }) },
        ...(init.localAddress && { localAddress: init.localAddress }),
        timeout: init.timeoutMs ?? 10_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value === undefined) continue;
            for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            setCookies: response.headers['set-cookie'] ?? [],
            ms: performance.now() - started,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A browser's cookies for the web application: what each Set-Cookie said last. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  take(setCookies: string[]): void {
    for (const header of setCookies) {
      const [pair = '', ...attributes] = header.split(';');
      const at = pair.indexOf('=');
      if (at < 1) continue;
      const name = pair.slice(0, at).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired) this.#cookies.delete(name);
      else this.#cookies.set(name, pair.slice(at + 1).trim());
    }
  }
  has(name: RegExp): boolean {
    return [...this.#cookies.keys()].some((key) => name.test(key));
  }
  /** Another browser with this one's device cookie only (a copy of what it knows, none of its sessions). */
  deviceOnly(): CookieJar {
    const other = new CookieJar();
    for (const [name, value] of this.#cookies) if (/^(__Host-)?device$/.test(name)) other.#cookies.set(name, value);
    return other;
  }
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

function percentile(values: number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0);
}

function add(counts: Record<string, number>, key: string | number, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}

function sum(records: Array<Record<string, number>>): Record<string, number> {
  const total: Record<string, number> = {};
  for (const record of records) for (const [key, count] of Object.entries(record)) add(total, key, count);
  return total;
}

/**
 * Signs the legitimate user up and in (from its own browser and address, before the attack starts) and
 * makes its API key through the account API, as the pages do. Throws with what failed.
 */
async function prepareLegitimateUser(
  web: URL,
  agent: Agent,
): Promise<{ name: string; password: string; key: string; browser: CookieJar; deviceCookie: boolean }> {
  const name = newName('soak-owner');
  const password = newPassword();
  const browser = new CookieJar();
  const account = async (method: string, path: string, body: unknown) => {
    const answer = await send(new URL(`api${path}`, web), {
      method,
      agent,
      localAddress: ATTACK_ADDRESSES.legitimate,
      headers: sameOrigin(web, browser),
      body: JSON.stringify(body),
    });
    browser.take(answer.setCookies);
    return answer;
  };
  const signUp = await account('POST', '/users', { name, password });
  if (signUp.status !== 201) throw new Error(`the legitimate user's sign-up was answered ${signUp.status}: ${signUp.body.slice(0, 300)}`);
  const signIn = await account('POST', '/session', { name, password });
  if (signIn.status !== 200) throw new Error(`the legitimate user's first sign-in was answered ${signIn.status}: ${signIn.body.slice(0, 300)}`);
  const created = await account('POST', '/keys', { name: 'soak legitimate client' });
  if (created.status !== 201) throw new Error(`creating the legitimate user's key was answered ${created.status}: ${created.body.slice(0, 300)}`);
  // Never quoted in an error: it holds the secret.
  const key = (JSON.parse(created.body) as { secret?: unknown }).secret;
  if (typeof key !== 'string') throw new Error("the answer that created the legitimate user's key has no secret");
  return { name, password, key, browser, deviceCookie: browser.has(/^(__Host-)?device$/) };
}

/** The headers the pages send with an unsafe request (src/account/same-origin.ts), and the browser's cookies. */
function sameOrigin(web: URL, browser?: CookieJar): Record<string, string> {
  const cookie = browser?.header();
  return {
    'Content-Type': 'application/json',
    Origin: web.origin,
    'Sec-Fetch-Site': 'same-origin',
    ...(cookie && { Cookie: cookie }),
  };
}

/** The spec file of one of the contracts `redocly.yaml` names. */
function contractSpec(name: 'main' | 'account'): string {
  const contract = readContracts().find((candidate) => candidate.name === name);
  if (!contract) throw new Error(`redocly.yaml has no api ${name}`);
  return contract.spec;
}

/** A response checker for one of the contracts `redocly.yaml` names. */
function checkerFor(name: 'main' | 'account'): ResponseChecker {
  return new ResponseChecker(loadSpec(contractSpec(name)));
}

/**
 * Runs the combined attack for `durationSeconds` beside the legitimate user, and reports it per second
 * and in total. Every answer is also checked against its contract.
 */
export async function runAttack(options: AttackOptions): Promise<AttackReport> {
  const api = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
  const web = new URL(options.webUrl.endsWith('/') ? options.webUrl : `${options.webUrl}/`);
  const validIntervalMs = options.validIntervalMs ?? 75;
  const signInIntervalMs = options.signInIntervalMs ?? 2_000;
  const checkers = { main: checkerFor('main'), account: checkerFor('account') };
  // One connection per client address for the flood; the legitimate user has connections of its own.
  const floodAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ownAgent = new Agent({ keepAlive: true });
  const owner = await prepareLegitimateUser(web, ownAgent);

  const seconds = Math.max(1, Math.floor(options.durationSeconds));
  const rows: AttackSecond[] = Array.from({ length: seconds + 1 }, (_, second) => ({
    second,
    flood: {},
    valid: { answered: 0, served: 0, maxMs: 0 },
    signIns: { tries: 0, succeeded: 0, maxMs: 0 },
    guesses: {},
    signUps: {},
    storm: {},
    burn: {},
    newcomers: { tries: 0, made: 0, maxMs: 0 },
    changes: { tries: 0, changed: 0, maxMs: 0, surviving: 0 },
    spread: {},
    spreadSignUps: {},
  }));
  const validLatencies: number[] = [];
  const signInLatencies: number[] = [];
  const newcomerLatencies: number[] = [];
  const changeLatencies: number[] = [];
  const newcomerStatuses: Record<string, number> = {};
  const changeStatuses: Record<string, number> = {};
  const racingSignIns: Record<string, number> = {};
  let sessionsChecked = 0;
  let sessionsSurviving = 0;
  let slowSignIns = 0;
  const signInStatuses: Record<string, number> = {};
  const passwordChangeIntervalMs = options.passwordChangeIntervalMs ?? 5_000;
  const newcomerIntervalMs = options.legitimateSignUpIntervalMs ?? 4_000;
  const attacker = await prepareStormAccount(web, ownAgent);
  // Right passwords are limited to a rate per account and per client (x-limits.signIn): the change's two extra sign-ins
  // (a second browser, the racing one) keep that far from the owner's own, as a person signing in on three browsers would.
  const accountLimits = readLimits(loadSpec(contractSpec('account')), 'account');
  const successIntervalMs = accountLimits.signIn.successIntervalSeconds * 1000;
  // Read before the attack starts: parsing a spec holds this process's event loop, and with it the legitimate user's requests.
  const spreadPlan = planSpread(options.spread, accountLimits);
  let lastOwnerSignIn = Number.NEGATIVE_INFINITY;
  /**
   * Waits until the owner's latest sign-in (from any of its browsers) was sent at least twice that long ago, and counts
   * this one: twice, as the server counts each when it handles it, which a busy event loop can put later than its send.
   */
  const spaceOwnerSignIn = async () => {
    const wait = lastOwnerSignIn + 2 * successIntervalMs - performance.now();
    if (wait > 0) await sleep(wait);
    lastOwnerSignIn = performance.now();
  };
  /** The legitimate user's sign-ins and password changes take turns, so each signs in with the password of the moment. */
  let ownerTurn: Promise<unknown> = Promise.resolve();
  const asOwner = <T>(work: () => Promise<T>): Promise<T> => {
    const turn = ownerTurn.then(work, work);
    ownerTurn = turn.catch(() => undefined);
    return turn;
  };
  const socketErrors: Record<string, number> = {};
  let serverErrors = 0;
  let contractViolations = 0;
  const violationExamples: string[] = [];
  const started = performance.now();
  const end = started + options.durationSeconds * 1000;
  const row = () => rows[Math.min(seconds, Math.floor((performance.now() - started) / 1000))] as AttackSecond;
  // Every loop below stops at `end`, and none sends more than this many requests.
  const maxRequests = 1_000_000;

  /** Sends one request of a part, counts its answer, checks it against its contract. */
  const attempt = async (part: Part, url: URL, operation: { contract: 'main' | 'account'; id: string }, init: Parameters<typeof send>[1]) => {
    try {
      const answer = await send(url, init);
      if (answer.status >= 500) serverErrors++;
      for (const problem of checkers[operation.contract].check(operation.id, { status: answer.status, headers: answer.headers, body: answer.body })) {
        contractViolations++;
        if (violationExamples.length < 5) violationExamples.push(`${part}: ${problem}`);
      }
      return answer;
    } catch (error) {
      add(socketErrors, `${part}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return undefined;
    }
  };

  /** Made-up keys, each request from the next address of the flood's. */
  let nextAddress = 0;
  const flood = async (worker: number) => {
    for (let count = 0; count < maxRequests && performance.now() < end; count++) {
      const localAddress = ATTACK_ADDRESSES.flood[nextAddress++ % ATTACK_ADDRESSES.flood.length];
      const headers = { Authorization: `Bearer ${generateApiKey().key}`, 'Content-Type': 'application/json' };
      const answer =
        (count + worker) % 2 === 0
          ? await attempt(
              'flood',
              api,
              { contract: 'main', id: 'listOwnItems' },
              { method: 'POST', headers, body: '{}', agent: floodAgent, ...(localAddress && { localAddress }) },
            )
          : await attempt(
              'flood',
              new URL('shared?limit=2', api),
              { contract: 'main', id: 'listSharedItemsByQuery' },
              { method: 'GET', headers, agent: floodAgent, ...(localAddress && { localAddress }) },
            );
      add(row().flood, answer?.status ?? 'error');
    }
  };

  /** The legitimate user's key, every `validIntervalMs`, one request at a time. */
  const valid = async () => {
    for (let count = 0; count < maxRequests && performance.now() < end; count++) {
      const due = started + count * validIntervalMs;
      if (due > performance.now()) await sleep(due - performance.now());
      if (performance.now() >= end) break;
      const answer = await attempt(
        'valid',
        api,
        { contract: 'main', id: 'listOwnItems' },
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${owner.key}`, 'Content-Type': 'application/json' },
          body: '{"limit":5}',
          agent: ownAgent,
          localAddress: ATTACK_ADDRESSES.legitimate,
        },
      );
      const current = row();
      current.valid.answered++;
      if (answer && answer.status >= 200 && answer.status < 300) {
        current.valid.served++;
        current.valid.maxMs = Math.max(current.valid.maxMs, Math.round(answer.ms));
        validLatencies.push(answer.ms);
      }
    }
  };

  /** The legitimate user signs in from its own browser every `signInIntervalMs`, keeping the cookies it was given. */
  const signIns = async () => {
    for (let count = 1; count < maxRequests; count++) {
      const due = started + count * signInIntervalMs;
      if (due >= end) break;
      await sleep(due - performance.now());
      // A sign-in held up behind a slow one is not sent at once after it, as a person would not sign in twice in a second.
      const answer = await asOwner(async () => {
        await spaceOwnerSignIn();
        return attempt(
          'signIn',
          new URL('api/session', web),
          { contract: 'account', id: 'signIn' },
          {
            method: 'POST',
            headers: sameOrigin(web, owner.browser),
            body: JSON.stringify({ name: owner.name, password: owner.password }),
            agent: ownAgent,
            localAddress: ATTACK_ADDRESSES.legitimate,
          },
        );
      });
      const current = row();
      current.signIns.tries++;
      add(signInStatuses, answer?.status ?? 'error');
      if (answer) owner.browser.take(answer.setCookies);
      if (answer && answer.ms >= LEGITIMATE_MAX_MS) slowSignIns++;
      if (answer?.status === 200) {
        current.signIns.succeeded++;
        current.signIns.maxMs = Math.max(current.signIns.maxMs, Math.round(answer.ms));
        signInLatencies.push(answer.ms);
      }
    }
  };

  /** Wrong passwords for the legitimate user's name, from a browser without its cookies, one at a time per address. */
  const guess = async (localAddress: string) => {
    for (let count = 0; count < maxRequests && performance.now() < end; count++) {
      const answer = await attempt(
        'guess',
        new URL('api/session', web),
        { contract: 'account', id: 'signIn' },
        { method: 'POST', headers: sameOrigin(web), body: JSON.stringify({ name: owner.name, password: newPassword() }), agent: ownAgent, localAddress },
      );
      add(row().guesses, answer?.status ?? 'error');
      await sleep(100);
    }
  };

  /** New accounts, one at a time per address. */
  const signUp = async (localAddress: string) => {
    for (let count = 0; count < maxRequests && performance.now() < end; count++) {
      const answer = await attempt(
        'signUp',
        new URL('api/users', web),
        { contract: 'account', id: 'signUp' },
        {
          method: 'POST',
          headers: sameOrigin(web),
          body: JSON.stringify({ name: newName('soak-flood'), password: newPassword() }),
          agent: ownAgent,
          localAddress,
        },
      );
      add(row().signUps, answer?.status ?? 'error');
      await sleep(100);
    }
  };

  /** The self sign-in storm: the right password for the attacker's own account, again and again, one at a time per address. */
  const storm = async (localAddress: string) => {
    const browser = new CookieJar();
    for (let count = 0; count < maxRequests && performance.now() < end; count++) {
      const answer = await attempt(
        'storm',
        new URL('api/session', web),
        { contract: 'account', id: 'signIn' },
        {
          method: 'POST',
          headers: sameOrigin(web, browser),
          body: JSON.stringify({ name: attacker.name, password: attacker.password }),
          agent: ownAgent,
          localAddress,
        },
      );
      if (answer) browser.take(answer.setCookies);
      add(row().storm, answer?.status ?? 'error');
    }
  };

  /**
   * The same-address quota burn: what others at the legitimate user's address (an office, a NAT) send without a
   * cookie, one at a time, as fast as they are answered. The user's own sign-ins carry its device cookie and are
   * counted against its account, so they must still succeed.
   */
  const burn = async () => {
    for (let count = 0; count < maxRequests && performance.now() < end; count++) {
      const answer = await attempt(
        'burn',
        new URL('api/session', web),
        { contract: 'account', id: 'getSession' },
        { method: 'GET', headers: sameOrigin(web), agent: floodAgent, localAddress: ATTACK_ADDRESSES.legitimate },
      );
      add(row().burn, answer?.status ?? 'error');
    }
  };

  /** Someone new signs up every `newcomerIntervalMs`, each from an address of its own, and must be answered 201 in under 2 s. */
  const newcomers = async () => {
    for (let count = 1; count < maxRequests; count++) {
      const due = started + count * newcomerIntervalMs;
      if (due >= end) break;
      await sleep(due - performance.now());
      const answer = await attempt(
        'newcomer',
        new URL('api/users', web),
        { contract: 'account', id: 'signUp' },
        {
          method: 'POST',
          headers: sameOrigin(web),
          body: JSON.stringify({ name: newName('soak-newcomer'), password: newPassword() }),
          agent: ownAgent,
          localAddress: ATTACK_ADDRESSES.newcomers[(count - 1) % ATTACK_ADDRESSES.newcomers.length] as string,
        },
      );
      const current = row();
      current.newcomers.tries++;
      add(newcomerStatuses, answer?.status ?? 'error');
      if (answer) newcomerLatencies.push(answer.ms);
      if (answer?.status === 201 && answer.ms < LEGITIMATE_MAX_MS) current.newcomers.made++;
      current.newcomers.maxMs = Math.max(current.newcomers.maxMs, Math.round(answer?.ms ?? 0));
    }
  };

  /** Whether a browser's session is still live (`GET /api/session` answers 200). */
  const live = async (browser: CookieJar) => {
    const answer = await attempt(
      'change',
      new URL('api/session', web),
      { contract: 'account', id: 'getSession' },
      { method: 'GET', headers: { Cookie: browser.header() }, agent: ownAgent, localAddress: ATTACK_ADDRESSES.legitimate },
    );
    return answer?.status === 200;
  };

  /**
   * The legitimate user changes its password every `passwordChangeIntervalMs`: first a second browser of its (with its
   * device cookie) signs in, then the change and a sign-in with the old password from a third are sent at once. After
   * the change neither of those browsers may hold a live session.
   */
  const changes = async () => {
    for (let count = 1; count < maxRequests; count++) {
      const due = started + count * passwordChangeIntervalMs;
      if (due >= end) break;
      await sleep(due - performance.now());
      await asOwner(async () => {
        const signIn = (browser: CookieJar, part: Part, password: string) =>
          attempt(
            part,
            new URL('api/session', web),
            { contract: 'account', id: 'signIn' },
            {
              method: 'POST',
              headers: sameOrigin(web, browser),
              body: JSON.stringify({ name: owner.name, password }),
              agent: ownAgent,
              localAddress: ATTACK_ADDRESSES.legitimate,
            },
          );
        await spaceOwnerSignIn();
        const laptop = owner.browser.deviceOnly();
        const before = await signIn(laptop, 'change', owner.password);
        if (before) laptop.take(before.setCookies);
        const racer = owner.browser.deviceOnly();
        const next = newPassword();
        // The racing sign-in goes at once with the change (it is the attack on the change); the owner's next waits after it.
        lastOwnerSignIn = performance.now();
        const [changed, raced] = await Promise.all([
          attempt(
            'change',
            new URL('api/password', web),
            { contract: 'account', id: 'changePassword' },
            {
              method: 'PUT',
              headers: sameOrigin(web, owner.browser),
              body: JSON.stringify({ currentPassword: owner.password, newPassword: next }),
              agent: ownAgent,
              localAddress: ATTACK_ADDRESSES.legitimate,
            },
          ),
          signIn(racer, 'race', owner.password),
        ]);
        const current = row();
        current.changes.tries++;
        add(changeStatuses, changed?.status ?? 'error');
        add(racingSignIns, raced?.status ?? 'error');
        if (changed) changeLatencies.push(changed.ms);
        current.changes.maxMs = Math.max(current.changes.maxMs, Math.round(changed?.ms ?? 0));
        if (changed?.status !== 204) return;
        if (changed.ms < LEGITIMATE_MAX_MS) current.changes.changed++;
        owner.password = next;
        owner.browser.take(changed.setCookies);
        if (raced) racer.take(raced.setCookies);
        // Every session started before the change, and any the racing sign-in got, must be over.
        for (const [browser, answer] of [
          [laptop, before],
          [racer, raced],
        ] as const) {
          if (answer?.status !== 200) continue;
          sessionsChecked++;
          if (await live(browser)) {
            sessionsSurviving++;
            current.changes.surviving++;
          }
        }
      });
    }
  };

  /** The /64 spread, through the target's trusted hop; when not run, the report says why. */
  const spread = async (): Promise<SpreadReport> => {
    if ('notRun' in spreadPlan) return { run: false, reason: spreadPlan.notRun };
    return runSpread({
      ...spreadPlan,
      attempt: (url, operation, init) => attempt('spread', url, operation, init),
      end,
      count: (kind, status) => add(kind === 'keys' ? row().spread : row().spreadSignUps, status),
    });
  };

  let reported = 0;
  const ticker = setInterval(() => {
    const whole = Math.floor((performance.now() - started) / 1000);
    for (; reported < Math.min(whole, seconds); reported++) options.onSecond?.(rows[reported] as AttackSecond);
  }, 250);
  let spreadReport: SpreadReport;
  try {
    [spreadReport] = await Promise.all([
      spread(),
      ...Array.from({ length: options.connections }, (_, worker) => flood(worker)),
      valid(),
      signIns(),
      ...ATTACK_ADDRESSES.guessers.map(guess),
      ...ATTACK_ADDRESSES.signUps.map(signUp),
      ...ATTACK_ADDRESSES.storm.map(storm),
      burn(),
      newcomers(),
      changes(),
    ]);
  } finally {
    clearInterval(ticker);
    floodAgent.destroy();
    ownAgent.destroy();
  }
  // Answers that came back after the last whole second count in the totals, not in a row of their own.
  const [tail] = rows.splice(seconds, 1) as [AttackSecond];
  for (; reported < seconds; reported++) options.onSecond?.(rows[reported] as AttackSecond);
  return summarize({
    options,
    rows,
    tail,
    validLatencies,
    signInLatencies,
    socketErrors,
    serverErrors,
    contractViolations,
    violationExamples,
    deviceCookie: owner.deviceCookie,
    slowSignIns,
    signInStatuses,
    newcomers: { statuses: newcomerStatuses, latencies: newcomerLatencies },
    changes: { statuses: changeStatuses, latencies: changeLatencies, racingSignIns, sessionsChecked, sessionsSurviving },
    spread: spreadReport,
  });
}

/** The /64 spread to run, with the limits it must meet, or why it is not run. */
function planSpread(
  spread: AttackOptions['spread'],
  account: Pick<AccountSpecLimits, 'signUp'>,
): { target: SpreadTarget; limits: SpreadLimits } | { notRun: string } {
  if (!spread) return { notRun: 'no hop the target trusts as its proxy was given' };
  if ('notRun' in spread) return spread;
  return { target: spread, limits: spreadLimits(account) };
}

/** The limits the /64 spread must meet as one client, read from the specs' `x-limits` (the server's defaults). */
function spreadLimits(account: Pick<AccountSpecLimits, 'signUp'>): SpreadLimits {
  const { failedAuthentication } = readLimits(loadSpec(contractSpec('main')), 'main');
  const { signUp } = account;
  return { perAddress: failedAuthentication.perAddress, windowSeconds: failedAuthentication.windowSeconds, signUpsPerClient: signUp.perClient };
}

/** The attacker's own account for the storm, made before the attack from an address of its own. */
async function prepareStormAccount(web: URL, agent: Agent): Promise<{ name: string; password: string }> {
  const name = newName('soak-attacker');
  const password = newPassword();
  const answer = await send(new URL('api/users', web), {
    method: 'POST',
    agent,
    localAddress: ATTACK_ADDRESSES.stormAccount,
    headers: sameOrigin(web),
    body: JSON.stringify({ name, password }),
  });
  if (answer.status !== 201) throw new Error(`the storm's account was answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return { name, password };
}

/** A legitimate operation's tally: `wanted` is the status it must get, each in under `LEGITIMATE_MAX_MS`. */
function tally(statuses: Record<string, number>, latencies: number[], wanted: number): LegitimateTally {
  const tries = Object.values(statuses).reduce((total, count) => total + count, 0);
  return {
    tries,
    succeeded: Math.min(statuses[wanted] ?? 0, latencies.filter((ms) => ms < LEGITIMATE_MAX_MS).length),
    statuses,
    latencyMs: { p50: percentile(latencies, 0.5), max: percentile(latencies, 1) },
  };
}

function summarize(run: {
  options: AttackOptions;
  rows: AttackSecond[];
  tail: AttackSecond;
  validLatencies: number[];
  signInLatencies: number[];
  socketErrors: Record<string, number>;
  serverErrors: number;
  contractViolations: number;
  violationExamples: string[];
  deviceCookie: boolean;
  slowSignIns: number;
  signInStatuses: Record<string, number>;
  newcomers: { statuses: Record<string, number>; latencies: number[] };
  changes: {
    statuses: Record<string, number>;
    latencies: number[];
    racingSignIns: Record<string, number>;
    sessionsChecked: number;
    sessionsSurviving: number;
  };
  spread: SpreadReport;
}): AttackReport {
  const all = [...run.rows, run.tail];
  const floodStatuses = sum(all.map((row) => row.flood));
  const floodRequests = Object.values(floodStatuses).reduce((total, count) => total + count, 0);
  const validAnswered = all.reduce((total, row) => total + row.valid.answered, 0);
  const validServed = all.reduce((total, row) => total + row.valid.served, 0);
  const signInTries = all.reduce((total, row) => total + row.signIns.tries, 0);
  const signInSucceeded = all.reduce((total, row) => total + row.signIns.succeeded, 0);
  const guesses = sum(all.map((row) => row.guesses));
  const signUps = sum(all.map((row) => row.signUps));
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((sumOf, count) => sumOf + count, 0);
  const secondsWithoutService = run.rows.filter((row) => row.valid.served === 0).map((row) => row.second);
  const storm = sum(all.map((row) => row.storm));
  const burn = sum(all.map((row) => row.burn));
  const newcomers = tally(run.newcomers.statuses, run.newcomers.latencies, 201);
  const changes = tally(run.changes.statuses, run.changes.latencies, 204);
  const ok =
    secondsWithoutService.length === 0 &&
    validServed === validAnswered &&
    signInTries > 0 &&
    signInSucceeded === signInTries &&
    run.slowSignIns === 0 &&
    newcomers.succeeded === newcomers.tries &&
    changes.succeeded === changes.tries &&
    run.changes.sessionsSurviving === 0 &&
    run.serverErrors === 0 &&
    (!run.spread.run || run.spread.oneClient);
  return {
    url: run.options.url,
    webUrl: run.options.webUrl,
    durationSeconds: run.options.durationSeconds,
    addresses: { flood: ATTACK_ADDRESSES.flood.length, guessers: ATTACK_ADDRESSES.guessers.length, signUps: ATTACK_ADDRESSES.signUps.length },
    flood: { requests: floodRequests, perSecond: Math.round(floodRequests / run.options.durationSeconds), statuses: floodStatuses },
    validKey: {
      requests: validAnswered,
      served: validServed,
      statuses: { '2xx': validServed, other: validAnswered - validServed },
      latencyMs: { p50: percentile(run.validLatencies, 0.5), p99: percentile(run.validLatencies, 0.99), max: percentile(run.validLatencies, 1) },
      minServedPerSecond: Math.min(...run.rows.map((row) => row.valid.served)),
      secondsWithoutService,
    },
    signIns: {
      tries: signInTries,
      succeeded: signInSucceeded,
      statuses: run.signInStatuses,
      latencyMs: { p50: percentile(run.signInLatencies, 0.5), max: percentile(run.signInLatencies, 1) },
      deviceCookie: run.deviceCookie,
    },
    guesses: { requests: total(guesses), unauthorized: guesses['401'] ?? 0, tooMany: guesses['429'] ?? 0, statuses: guesses },
    signUps: { requests: total(signUps), made: signUps['201'] ?? 0, refused: signUps['429'] ?? 0, statuses: signUps },
    storm: { requests: total(storm), statuses: storm },
    burn: { requests: total(burn), statuses: burn },
    newcomers,
    passwordChanges: {
      ...changes,
      sessionsChecked: run.changes.sessionsChecked,
      sessionsSurviving: run.changes.sessionsSurviving,
      racingSignIns: run.changes.racingSignIns,
    },
    spread: run.spread,
    serverErrors: run.serverErrors,
    socketErrors: run.socketErrors,
    contractViolations: run.contractViolations,
    violationExamples: run.violationExamples,
    perSecond: run.rows,
    ok,
  };
}

const statusList = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ') || 'none';

/** One line of the per-second table. */
export function formatAttackSecond(row: AttackSecond): string {
  const cell = (text: string | number, width: number) => String(text).padStart(width);
  return [
    cell(row.second, 4),
    cell(statusList(row.flood), 26),
    cell(`${row.valid.served}/${row.valid.answered}`, 7),
    cell(row.valid.maxMs, 6),
    cell(`${row.signIns.succeeded}/${row.signIns.tries}`, 7),
    cell(`${row.guesses['401'] ?? 0}/${row.guesses['429'] ?? 0}`, 8),
    cell(`${row.signUps['201'] ?? 0}/${row.signUps['429'] ?? 0}`, 8),
    cell(`${row.storm['200'] ?? 0}/${row.storm['429'] ?? 0}`, 9),
    cell(row.newcomers.tries ? `${row.newcomers.made}/${row.newcomers.tries} ${row.newcomers.maxMs}` : '', 10),
    cell(row.changes.tries ? `${row.changes.changed}/${row.changes.tries} ${row.changes.maxMs}` : '', 10),
    cell(row.changes.tries ? row.changes.surviving : '', 4),
    cell(`${row.spread['401'] ?? 0}/${row.spread['429'] ?? 0}`, 11),
    cell(`${row.spreadSignUps['201'] ?? 0}/${row.spreadSignUps['429'] ?? 0}`, 12),
  ].join('  ');
}

/** The header of the per-second table. */
export const ATTACK_TABLE_HEADER = [
  '   s',
  'made-up keys by status'.padStart(26),
  'key 2xx',
  'max ms',
  'sign-in',
  '401/429'.padStart(8),
  'made/429'.padStart(8),
  'storm 200/429'.padStart(9),
  'new ok ms'.padStart(10),
  'pw ok ms'.padStart(10),
  'live'.padStart(4),
  '/64 401/429'.padStart(11),
  '/64 made/429'.padStart(12),
].join('  ');

/** The report as a short summary for a terminal (the per-second table is printed as the run goes). */
export function formatAttackReport(report: AttackReport): string {
  const socket = statusList(report.socketErrors);
  return [
    `soak --attack: ${report.url} and ${report.webUrl}, ${report.durationSeconds} s`,
    `  made-up keys    ${report.flood.requests} (${report.flood.perSecond}/s) from ${report.addresses.flood} addresses; ${statusList(report.flood.statuses)}`,
    `  valid key       ${report.validKey.served} of ${report.validKey.requests} served; at least ${report.validKey.minServedPerSecond} in every second${report.validKey.secondsWithoutService.length ? `; NONE in second(s) ${report.validKey.secondsWithoutService.join(', ')}` : ''}; p50 ${report.validKey.latencyMs.p50} ms, p99 ${report.validKey.latencyMs.p99} ms, max ${report.validKey.latencyMs.max} ms`,
    `  sign-ins        ${report.signIns.succeeded} of ${report.signIns.tries} succeeded (p50 ${report.signIns.latencyMs.p50} ms, max ${report.signIns.latencyMs.max} ms; ${statusList(report.signIns.statuses)}), from a browser ${report.signIns.deviceCookie ? 'holding its device cookie' : 'the server gave no device cookie'}`,
    `  guesses         ${report.guesses.requests} from ${report.addresses.guessers} addresses: 401 ${report.guesses.unauthorized}, 429 ${report.guesses.tooMany}${Object.keys(report.guesses.statuses).some((status) => status !== '401' && status !== '429') ? ` (all: ${statusList(report.guesses.statuses)})` : ''}`,
    `  sign-ups        ${report.signUps.requests} from ${report.addresses.signUps} addresses: made ${report.signUps.made}, refused ${report.signUps.refused}${Object.keys(report.signUps.statuses).some((status) => status !== '201' && status !== '429') ? ` (all: ${statusList(report.signUps.statuses)})` : ''}`,
    `  storm           ${report.storm.requests} sign-ins to the attacker's own account from ${ATTACK_ADDRESSES.storm.length} addresses; ${statusList(report.storm.statuses)}`,
    `  address burn    ${report.burn.requests} requests without a cookie from the legitimate user's address ${ATTACK_ADDRESSES.legitimate}; ${statusList(report.burn.statuses)}`,
    `  newcomers       ${report.newcomers.succeeded} of ${report.newcomers.tries} signed up in under ${LEGITIMATE_MAX_MS} ms (p50 ${report.newcomers.latencyMs.p50} ms, max ${report.newcomers.latencyMs.max} ms; ${statusList(report.newcomers.statuses)})`,
    `  password change ${report.passwordChanges.succeeded} of ${report.passwordChanges.tries} changed in under ${LEGITIMATE_MAX_MS} ms (p50 ${report.passwordChanges.latencyMs.p50} ms, max ${report.passwordChanges.latencyMs.max} ms; ${statusList(report.passwordChanges.statuses)}); sessions live after a change: ${report.passwordChanges.sessionsSurviving} of ${report.passwordChanges.sessionsChecked}; racing sign-ins ${statusList(report.passwordChanges.racingSignIns)}`,
    formatSpread(report.spread),
    `  5xx             ${report.serverErrors}`,
    `  socket errors   ${socket}`,
    `  contract        ${report.contractViolations} violations${report.violationExamples.map((example) => `\n                  ${example}`).join('')}`,
    `  result          ${report.ok ? 'ok' : `FAILED: a second without the valid key served, a legitimate sign-in, sign-up or password change that failed or took ${LEGITIMATE_MAX_MS} ms or more, a session that outlived a password change, a 5xx, or a /64 given more than one client's budgets`}`,
  ].join('\n');
}

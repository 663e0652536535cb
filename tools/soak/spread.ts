/**
 * The /64 spread of `npm run soak -- --attack` (issue 33): an attacker that holds a whole IPv6 /64 (as one machine
 * usually does) spreads made-up keys and sign-ups over many addresses of it, a fresh random one each request. The
 * server counts an IPv6 client by its /64 (`CLIENT_IPV6_PREFIX`, src/http/client-key.ts), so the /64 must get one
 * client's budgets: at most `x-limits.failedAuthentication.perAddress` 401s a window (then 429), and at most the
 * account spec's `x-limits.signUp.perClient` accounts.
 *
 * Loopback has no /64 to bind to, so the requests come through a hop the target trusts as its proxy: from a local
 * address it lists in `TRUSTED_PROXIES`, with `X-Forwarded-For: <an address of the /64>`, as HAProxy would send
 * them. A made-up key from another network through the same hop, once the /64 has met its 429, shows the target
 * took the header: were the hop not trusted, every request would count against the hop and that one would get 429 too.
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { failureBlock } from '../../src/http/failure-budget.js';
import { generateApiKey } from '../../src/keys/api-key.js';

/** Where the spread goes: the target's public API and web application, and the local address it trusts as its proxy. */
export interface SpreadTarget {
  url: string;
  webUrl: string;
  proxyAddress: string;
}

/** The limits the /64 must meet as one client, from the specs' `x-limits`. */
export interface SpreadLimits {
  /** Public API: `x-limits.failedAuthentication.perAddress` and its `windowSeconds`. */
  perAddress: number;
  windowSeconds: number;
  /** Account API: `x-limits.signUp.perClient`. */
  signUpsPerClient: number;
}

/** How the combined attack sends one request of the spread: counted, checked against its contract; undefined on a socket error. */
export type SpreadAttempt = (
  url: URL,
  operation: { contract: 'main' | 'account'; id: string },
  init: { method: string; headers: Record<string, string>; body?: string; agent: Agent; localAddress: string },
) => Promise<{ status: number } | undefined>;

/** The spread's part of the report: what the /64 got, and whether that was one client's budgets. */
export type SpreadReport =
  | {
      run: true;
      /** The attacker's /64, and the hop (`proxyAddress`) its requests came through to `url` and `webUrl`. */
      network: string;
      url: string;
      webUrl: string;
      proxyAddress: string;
      /** Distinct addresses of the /64 the requests named. */
      addresses: number;
      keys: {
        requests: number;
        unauthorized: number;
        tooMany: number;
        statuses: Record<string, number>;
        /** `x-limits.failedAuthentication.perAddress`, the budget windows the spread lasted into, and the most 401s one client may get in them. */
        perAddress: number;
        windows: number;
        bound: number;
      };
      signUps: { requests: number; made: number; refused: number; statuses: Record<string, number>; perClient: number };
      /**
       * A made-up key from another network through the same hop, sent once the /64 had met its 429: its status (401: the
       * target counted the forwarded address, not the hop), or null when the /64 never met its budget.
       */
      neighbour: { network: string; status: number | 'error' | null };
      /** False when the neighbour got 429 too: the target counted the hop, not the /64, and the spread measured nothing. */
      hopTrusted: boolean | null;
      /** True when the /64 got one client's budgets: 401s within the bound, sign-ups within perClient, and the hop taken. */
      oneClient: boolean;
    }
  | { run: false; reason: string };

/** The statuses of the spread's requests, as the attack counts them in its rows. */
export interface SpreadCounts {
  keys: Record<string, number>;
  signUps: Record<string, number>;
}

/** A random 16-bit group of an IPv6 address, in hex. */
const group = () => randomBytes(2).readUInt16BE().toString(16);

/** A /64 of its own for each run (2001:db8::/32, the documentation prefix), so a rerun against the same server starts afresh. */
function newNetwork(): string {
  return `2001:db8:${group()}:${group()}`;
}

/** A random address of a /64, given as its first four groups. */
function addressIn(network: string): string {
  return `${network}:${group()}:${group()}:${group()}:${group()}`;
}

/**
 * The neighbour's network: in 3fff::/20 (RFC 9637's documentation prefix), so it is another client under any
 * `CLIENT_IPV6_PREFIX` (32 at the shortest), not only under /64.
 */
function neighbourNetwork(): string {
  return `3fff:0:${group()}:${group()}`;
}

/**
 * Made-up keys the spread has in flight at once: a few, so the /64 meets its budget within a short run beside the
 * flood's many, and each 401 past the budget that overlapping requests can explain stays small (below).
 */
export const SPREAD_KEYS_IN_FLIGHT = 2;

/**
 * The most 401s one client may get from `windows` budget windows. Each: the budget; the requests in flight when it
 * was spent (a request's budget is read before its key is looked up, and counted after); and what a target sharing it
 * through its database (PostgreSQL) answers in the one round trip in which it learns it is spent (docs/limits.md).
 * Each of the spread's requests waits a key lookup of its own, so only a few fit in that round trip: a block (a tenth
 * of the budget) allows for them, and all of it stays far below what counting each address on its own gives (every
 * request a 401).
 */
export function unauthorizedBound(limits: SpreadLimits, windows: number): number {
  return windows * (limits.perAddress + SPREAD_KEYS_IN_FLIGHT - 1 + failureBlock(limits.perAddress));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs the spread until `end` (a `performance.now()` time): made-up keys `SPREAD_KEYS_IN_FLIGHT` at a time, and
 * sign-ups one at a time (a script's, without Origin: the server lets such a request through), each naming a fresh
 * address of the /64.
 * `count` is told each answer's status, for the attack's per-second rows.
 */
export async function runSpread(run: {
  target: SpreadTarget;
  limits: SpreadLimits;
  attempt: SpreadAttempt;
  end: number;
  count: (kind: keyof SpreadCounts, status: number | 'error') => void;
}): Promise<SpreadReport> {
  const { target, attempt, end } = run;
  const api = new URL(target.url.endsWith('/') ? target.url : `${target.url}/`);
  const web = new URL(target.webUrl.endsWith('/') ? target.webUrl : `${target.webUrl}/`);
  const network = newNetwork();
  const neighbour = neighbourNetwork();
  // The hop's own connections: keep-alive, each request naming its own address in the header.
  const agent = new Agent({ keepAlive: true, maxSockets: SPREAD_KEYS_IN_FLIGHT + 1 });
  const counts: SpreadCounts = { keys: {}, signUps: {} };
  const addresses = new Set<string>();
  let neighbourStatus: number | 'error' | null = null;
  let neighbourSent = false;
  const from = (address: string) => ({ 'X-Forwarded-For': address, 'Content-Type': 'application/json' });
  const tally = (kind: keyof SpreadCounts, status: number | 'error') => {
    counts[kind][status] = (counts[kind][status] ?? 0) + 1;
    run.count(kind, status);
  };
  const madeUpKey = (address: string) =>
    attempt(
      api,
      { contract: 'main', id: 'listOwnItems' },
      { method: 'POST', headers: { ...from(address), Authorization: `Bearer ${generateApiKey().key}` }, body: '{}', agent, localAddress: target.proxyAddress },
    );

  const keys = async () => {
    while (performance.now() < end) {
      const address = addressIn(network);
      addresses.add(address);
      const answer = await madeUpKey(address);
      tally('keys', answer?.status ?? 'error');
      // Once the /64 has spent its budget: another network through the same hop must still get its own.
      if (answer?.status === 429 && !neighbourSent) {
        neighbourSent = true;
        neighbourStatus = (await madeUpKey(addressIn(neighbour)))?.status ?? 'error';
      }
    }
  };
  const signUps = async () => {
    while (performance.now() < end) {
      const address = addressIn(network);
      addresses.add(address);
      const name = `soak-spread-${randomBytes(6).toString('hex')}`;
      const password = `${randomBytes(18).toString('base64url')} soak`;
      const answer = await attempt(
        new URL('api/users', web),
        { contract: 'account', id: 'signUp' },
        { method: 'POST', headers: from(address), body: JSON.stringify({ name, password }), agent, localAddress: target.proxyAddress },
      );
      tally('signUps', answer?.status ?? 'error');
      await sleep(100);
    }
  };

  const started = performance.now();
  const startedAt = Date.now();
  try {
    await Promise.all([...Array.from({ length: SPREAD_KEYS_IN_FLIGHT }, keys), signUps()]);
  } finally {
    agent.destroy();
  }
  // Every window the keys lasted into may have given a budget: windows from their first failure (in memory, SQLite),
  // or windows aligned to the database's clock (shared on PostgreSQL), which a run shorter than one can still span two of.
  const windowMs = run.limits.windowSeconds * 1000;
  const windows = Math.max(1 + Math.floor((performance.now() - started) / windowMs), 1 + Math.floor(Date.now() / windowMs) - Math.floor(startedAt / windowMs));
  return summarizeSpread({ target, limits: run.limits, network, neighbour, counts, addresses: addresses.size, neighbourStatus, windows });
}

/** The spread's report from what it counted. */
export function summarizeSpread(run: {
  target: SpreadTarget;
  limits: SpreadLimits;
  network: string;
  neighbour: string;
  counts: SpreadCounts;
  addresses: number;
  neighbourStatus: number | 'error' | null;
  windows: number;
}): SpreadReport {
  const total = (statuses: Record<string, number>) => Object.values(statuses).reduce((sum, count) => sum + count, 0);
  const { keys, signUps } = run.counts;
  const bound = unauthorizedBound(run.limits, run.windows);
  const unauthorized = keys['401'] ?? 0;
  const made = signUps['201'] ?? 0;
  const hopTrusted = run.neighbourStatus === null ? null : run.neighbourStatus !== 429;
  return {
    run: true,
    network: `${run.network}::/64`,
    url: run.target.url,
    webUrl: run.target.webUrl,
    proxyAddress: run.target.proxyAddress,
    addresses: run.addresses,
    keys: {
      requests: total(keys),
      unauthorized,
      tooMany: keys['429'] ?? 0,
      statuses: keys,
      perAddress: run.limits.perAddress,
      windows: run.windows,
      bound,
    },
    signUps: { requests: total(signUps), made, refused: signUps['429'] ?? 0, statuses: signUps, perClient: run.limits.signUpsPerClient },
    neighbour: { network: `${run.neighbour}::/64`, status: run.neighbourStatus },
    hopTrusted,
    oneClient: unauthorized <= bound && made <= run.limits.signUpsPerClient && hopTrusted !== false,
  };
}

const statusList = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ') || 'none';

/** The spread's lines of the terminal summary: what the /64 got, against one client's budgets; or why it was not run. */
export function formatSpread(report: SpreadReport): string {
  if (!report.run) return `  /64 spread      NOT RUN: ${report.reason}`;
  const { keys, signUps } = report;
  const neighbour =
    report.hopTrusted === null
      ? 'the /64 never met its budget, so whether the hop was trusted was not shown'
      : report.hopTrusted
        ? `a made-up key from ${report.neighbour.network} through the same hop: ${report.neighbour.status} (the hop's X-Forwarded-For was taken)`
        : `a made-up key from ${report.neighbour.network} through the same hop: 429 too: the target counted the hop, not the /64 (is ${report.proxyAddress} in its TRUSTED_PROXIES, with FORWARDED_HEADER x-forwarded-for?)`;
  return [
    `  /64 spread      ${report.network} from ${report.addresses} addresses, through ${report.proxyAddress} (X-Forwarded-For) to ${report.url} and ${report.webUrl}: ${report.oneClient ? 'one client' : 'MORE THAN ONE CLIENT'}`,
    `                  made-up keys ${keys.requests}: 401 ${keys.unauthorized} (one client: at most ${keys.bound}, its budget of ${keys.perAddress} in ${keys.windows} window(s) with the in-flight and round-trip allowance), 429 ${keys.tooMany}${Object.keys(keys.statuses).some((status) => status !== '401' && status !== '429') ? ` (all: ${statusList(keys.statuses)})` : ''}`,
    `                  sign-ups ${signUps.requests}: made ${signUps.made} (one client: at most ${signUps.perClient}), refused ${signUps.refused}${Object.keys(signUps.statuses).some((status) => status !== '201' && status !== '429') ? ` (all: ${statusList(signUps.statuses)})` : ''}`,
    `                  ${neighbour}`,
  ].join('\n');
}

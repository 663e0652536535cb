// The account API's sign-in beside the public API: what one costs, and what a flood of them leaves the public API.
import { Agent, request } from 'node:http';
import { readLimits } from '../../../src/contract/limits.js';
import { loadContractSpec } from '../../../src/contract/spec.js';
import { readCpuMs } from '../../process/resource-usage.js';

const NAME = 'bench-sign-in';
const PASSWORD = 'a bench password of some length';

/** Clients of the flood, each from its own loopback address, so the account API's per-address limits do not stop it first. */
export const FLOOD_CLIENTS = 32;

interface Answer {
  status: number;
  retryAfterSeconds: number;
}

/** One request to the web application as its pages send it (same origin), optionally from a given loopback address. */
function send(webUrl: string, method: string, path: string, body: unknown, agent?: Agent): Promise<Answer> {
  const url = new URL(path, webUrl);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), origin: url.origin, 'sec-fetch-site': 'same-origin' },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, retryAfterSeconds: Number(incoming.headers['retry-after'] ?? 0) }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

/** The loopback address of flood client `index` (127.0.0.2 on). */
const floodAddress = (index: number) => `127.0.0.${index + 2}`;

/**
 * Makes the accounts the sign-ins use: one for the CPU measurement, and one per flood client, each signed up
 * from that client's own address. Each sign-in in flight holds an attempt of its account's count, so a flood of
 * right passwords at one account would meet the account's sign-in limit rather than the hashing queue; and an
 * address may sign up only a few accounts (`x-limits.signUp`).
 */
export async function signUp(webUrl: string): Promise<void> {
  const accounts: Array<{ name: string; address?: string }> = [
    { name: NAME },
    ...Array.from({ length: FLOOD_CLIENTS }, (_, index) => ({ name: `${NAME}-${index}`, address: floodAddress(index) })),
  ];
  for (const { name, address } of accounts) {
    const agent = address === undefined ? undefined : new Agent({ localAddress: address });
    try {
      const answer = await send(webUrl, 'POST', '/api/users', { name, password: PASSWORD }, agent);
      if (answer.status !== 201) throw new Error(`sign-up of ${name} on ${webUrl} answered ${answer.status}`);
    } finally {
      agent?.destroy();
    }
  }
}

/** Right passwords one account may send at once before the spec's rate holds it back (`x-limits.signIn.successesPerAccount`). */
const FREE_SIGN_INS = readLimits(loadContractSpec('account'), 'account').signIn.successesPerAccount;

/**
 * CPU time of the server process per sign-in, in ms: `count` sign-ins one after the other (the hash is most of it),
 * at most the account's free right passwords, so none meets the sign-in rate's 429.
 */
export async function cpuPerSignInMs(webUrl: string, pid: number, wanted: number): Promise<number> {
  const count = Math.min(wanted, FREE_SIGN_INS);
  const before = readCpuMs(pid) ?? Number.NaN;
  for (let i = 0; i < count; i++) {
    const answer = await send(webUrl, 'POST', '/api/session', { name: NAME, password: PASSWORD });
    if (answer.status !== 200) throw new Error(`sign-in answered ${answer.status}`);
  }
  return ((readCpuMs(pid) ?? Number.NaN) - before) / count;
}

export interface FloodTally {
  signedIn: number;
  refused: number;
  other: number;
}

/**
 * A flood of sign-ins: `FLOOD_CLIENTS` clients from 127.0.0.2 on, each to its own account, signing in again as soon as it is
 * answered, and waiting `Retry-After` when refused, as a persistent client would. Runs until stopped.
 */
export function startSignInFlood(webUrl: string): { stop(): Promise<FloodTally> } {
  const tally: FloodTally = { signedIn: 0, refused: 0, other: 0 };
  let running = true;
  const clients = Array.from({ length: FLOOD_CLIENTS }, async (_, index) => {
    const agent = new Agent({ keepAlive: true, localAddress: floodAddress(index) });
    try {
      while (running) {
        const answer = await send(webUrl, 'POST', '/api/session', { name: `${NAME}-${index}`, password: PASSWORD }, agent).catch(() => ({
          status: 0,
          retryAfterSeconds: 1,
        }));
        if (answer.status === 200) tally.signedIn++;
        else if (answer.status === 503) tally.refused++;
        else tally.other++;
        if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, Math.max(answer.retryAfterSeconds, 0.1) * 1000));
      }
    } finally {
      agent.destroy();
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(clients);
      return tally;
    },
  };
}

/**
 * Issue 20's attack on a real process: a flood of made-up keys, each well-formed with a right checksum
 * (so each costs a lookup), from 10,000 client addresses (TRUSTED_PROXIES lets the test name them in
 * X-Forwarded-For), while the attacker keeps emptying the key cache with writes of its own (a key made
 * and revoked in the account API). The valid key is answered 200 on every try. Before ADR 0025 the flood spent the budget in all within a second and the valid key got 429
 * whenever the cache had forgotten it. Prints the flood's rate and the valid key's latency meanwhile.
 */
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/keys/api-key.js';
import { makeKey } from '../../tools/process/make-key.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { type ServerProcess, startServer } from '../../tools/process/server.js';

/** The part of autocannon's API used here beyond what `bench/types/autocannon.d.ts` declares: a request built per request. */
type Flood = (
  options: { url: string; connections: number; duration: number; requests: Array<{ setupRequest: (request: { headers?: Record<string, string> }) => object }> },
  done: (error: Error | null, result: { requests: { average: number }; statusCodeStats: Record<string, { count: number }> }) => void,
) => unknown;

const SECONDS = 10;
const ADDRESSES = 10_000;

const database = scratchDatabase('flood-');
let server: ServerProcess;
let key: string;
let web: string;
let cookie: string;
beforeAll(async () => {
  key = (await makeKey(database.path, 'ann')).key;
  // The valid key's own quota out of the way: the probe sends about 40 requests a second.
  server = await startServer({ databasePath: database.path, env: { TRUSTED_PROXIES: '127.0.0.1', RATE_LIMIT_REQUESTS: '1000000', LOG_LEVEL: 'warn' } });
  web = /^Web application on (\S+)$/m.exec(server.stderr())?.[1] ?? '';
  const signUp = await fetch(`${web}/api/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'mallory', password: 'correct horse battery staple' }),
  });
  cookie = (signUp.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  expect(signUp.status).toBe(201);
});

/** One write through the server's own store (a key made, then revoked, in the account API), which empties its key cache (ADR 0023). */
async function write(): Promise<void> {
  const created = await fetch(`${web}/api/keys`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie }, body: '{"name":"churn"}' });
  const { key: made } = (await created.json()) as { key: { id: string } };
  const revoked = await fetch(`${web}/api/keys/${made.id}/revoke`, { method: 'POST', headers: { Cookie: cookie } });
  await revoked.arrayBuffer();
}
afterAll(async () => {
  await server?.stop();
  database.remove();
});

/** The valid key, every 25 ms until `until`: each answer's status and latency. */
async function probe(until: number): Promise<{ statuses: Record<number, number>; latencies: number[] }> {
  const statuses: Record<number, number> = {};
  const latencies: number[] = [];
  while (Date.now() < until) {
    const started = performance.now();
    const response = await fetch(`${server.url}/shared`, { headers: { Authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { statuses, latencies: latencies.sort((a, b) => a - b) };
}

describe('a flood of made-up keys from many addresses', () => {
  it('never refuses a valid key, even while the key cache keeps being emptied', { timeout: 60_000 }, async () => {
    let sent = 0;
    const flood = new Promise<Parameters<Parameters<Flood>[1]>[1]>((resolve, reject) =>
      (autocannon as unknown as Flood)(
        {
          url: `${server.url}/shared`,
          connections: 8,
          duration: SECONDS,
          requests: [
            {
              setupRequest(request) {
                request.headers = {
                  authorization: `Bearer ${generateApiKey().key}`,
                  'x-forwarded-for': `10.0.${Math.floor((sent % ADDRESSES) / 250)}.${sent++ % 250}`,
                };
                return request;
              },
            },
          ],
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    );
    // The attacker's own writes, two a second: each one empties every cache of the server.
    const writes = setInterval(() => void write(), 500);
    const probed = await probe(Date.now() + (SECONDS - 1) * 1000);
    clearInterval(writes);
    const result = await flood;
    const answers = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, stat]) => [status, stat.count]));
    const at = (q: number) => probed.latencies[Math.min(probed.latencies.length - 1, Math.floor(q * probed.latencies.length))]?.toFixed(1);
    console.log(
      `flood: ${Math.round(result.requests.average)} made-up keys/s from ${ADDRESSES} addresses, answers ${JSON.stringify(answers)}; ` +
        `valid key meanwhile: ${JSON.stringify(probed.statuses)}, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`,
    );
    // Each address stays near its budget (100), so nearly every made-up key costs its lookup; a fast machine may take one past it (429).
    expect(Object.keys(answers).filter((status) => status !== '401' && status !== '429')).toEqual([]);
    expect(answers['401']).toBeGreaterThan(0.9 * result.requests.average * SECONDS);
    expect(probed.statuses).toEqual({ 200: expect.any(Number) });
    expect(probed.statuses[200]).toBeGreaterThan(50);
  });
});

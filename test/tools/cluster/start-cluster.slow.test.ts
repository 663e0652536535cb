/**
 * `npm run start:cluster` as an operator runs it, on the run's PostgreSQL: it prints where to get a key but
 * never a key (its output carries the instances' logs), a key made with the keys CLI works through it, HAProxy
 * (deploy/haproxy.cfg) spreads requests over both instances (their quota windows are shared, so the remaining
 * count goes down across them), each client is counted as itself behind it (X-Forwarded-For, TRUSTED_PROXIES),
 * and Ctrl-C stops every process it started, HAProxy included.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { portToBindLater } from '../../../src/cli/port-to-bind-later.js';
import { generateApiKey } from '../../../src/keys/api-key.js';
import { leaseBlock } from '../../../src/http/shared-rate-limit.js';
import { tsxCommand } from '../../../tools/process/commands.js';
import { launch } from '../../../tools/process/launch.js';
import { makeKey } from '../../../tools/process/make-key.js';
import { waitForOutput } from '../../../tools/process/ready.js';
import { requestContract } from '../../helpers/contract.js';
import { freshDatabase } from '../../helpers/postgres.js';

describe('npm run start:cluster', () => {
  it('serves one key through HAProxy over two instances and stops them all on SIGINT', async () => {
    const databaseUrl = await freshDatabase('start_cluster');
    const [port, webPort] = [await portToBindLater(), await portToBindLater()];
    const cluster = launch(tsxCommand('tools/cluster/main.ts', ['--instances', '2', '--port', String(port), '--web-port', String(webPort)]), {
      env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', FAILED_AUTH_PER_ADDRESS: '3' },
    });
    const output = () => `${cluster.stdout()}${cluster.stderr()}`;
    try {
      await waitForOutput(cluster, /Ctrl-C stops/, { timeoutMs: 60_000 });
      expect(output()).not.toMatch(/tka_[0-9A-Za-z]{38}/);
      expect(output()).toContain('npm run keys -- create --user');
      const { key } = await makeKey(':unused:', 'ann', { DATABASE_URL: databaseUrl });
      const instancePorts = [...output().matchAll(/(?:Listening on|Web application on) http:\/\/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1]));
      expect(new Set(instancePorts).size, output()).toBe(4);
      expect(output()).toContain(
        `HAProxy (deploy/haproxy.cfg) serves the public API on http://127.0.0.1:${port} and the web application on http://127.0.0.1:${webPort}`,
      );
      const page = await fetch(`http://127.0.0.1:${webPort}/`);
      expect(page.status).toBe(200);
      // The pages' curl shows HAProxy's API frontend, not an instance.
      expect(await page.text()).not.toContain(`127.0.0.1:${instancePorts[0]}`);
      const remaining = [];
      for (let index = 0; index < 4; index++) {
        const response = await fetch(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{}',
        });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        remaining.push(Number(response.headers.get('ratelimit-remaining')));
      }
      // Two instances each leased a block of the spec's quota: neither thinks the whole quota is its own.
      const { requests } = requestContract.limits.rateLimit;
      expect(Math.min(...remaining)).toBeLessThan(requests - leaseBlock(requests));

      // HAProxy's X-Forwarded-For, trusted by the instances (TRUSTED_PROXIES): one client's made-up keys use up its
      // own failure budget (3 per instance here), not that of every client behind the proxy.
      const attacker: number[] = [];
      while (attacker.length < 20 && attacker.at(-1) !== 429) attacker.push(await madeUp(port, '127.0.0.2'));
      expect(attacker.at(-1)).toBe(429);
      expect(await madeUp(port, '127.0.0.3')).toBe(401);
    } finally {
      cluster.signal('SIGINT');
    }
    expect(await cluster.exited).toEqual({ code: 0, signal: null });
    // Nothing answers on HAProxy's or the instances' ports any more.
    for (const stopped of [port, webPort, ...instancePortsSeen(output())]) {
      await expect(fetch(`http://127.0.0.1:${stopped}/`, { method: 'POST' })).rejects.toThrow();
    }
  }, 90_000);
});

/** A request with a made-up key from the loopback address `from`, through HAProxy on `port`; its status. */
function madeUp(port: number, from: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, localAddress: from, path: '/shared', agent: false, headers: { authorization: `Bearer ${generateApiKey().key}` } },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function instancePortsSeen(output: string): number[] {
  return [...output.matchAll(/(?:Listening on|Web application on) http:\/\/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1]));
}

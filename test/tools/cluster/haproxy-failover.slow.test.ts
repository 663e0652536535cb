/**
 * `npm run start:cluster` with three instances behind HAProxy (deploy/haproxy.cfg), under a bounded load of
 * four clients, each waiting for its answer before it sends again:
 * - SIGTERM to one instance: it turns /readyz 503 and serves on for SHUTDOWN_DELAY_SECONDS, HAProxy's check
 *   takes it out within about 2 s, and it closes only after: not one request fails.
 * - SIGKILL to another: a request HAProxy sends it in the moment before the check sees it gone may fail (a few
 *   at most, reported), but once HAProxy has marked it DOWN, not one 5xx or failed request follows.
 * The third serves everything in the end. And the instances run the built artefact (`dist/`) and trust only
 * HAProxy's own source address, so a client on this machine cannot forge its address around HAProxy.
 */
import { describe, expect, it } from 'vitest';
import { portToBindLater } from '../../../src/cli/port-to-bind-later.js';
import { tsxCommand } from '../../../tools/process/commands.js';
import { launch } from '../../../tools/process/launch.js';
import { makeKey } from '../../../tools/process/make-key.js';
import { waitForOutput } from '../../../tools/process/ready.js';
import { freshDatabase } from '../../helpers/postgres.js';

interface Answer {
  sentAt: number;
  status: number | 'error';
}

/** `clients` loops of one request at a time until `stop` is set: at most that many requests in flight. */
function load(url: string, key: string, clients: number): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let stopped = false;
  const loops = Array.from({ length: clients }, async () => {
    while (!stopped) {
      const sentAt = Date.now();
      try {
        const response = await fetch(`${url}/shared`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        answers.push({ sentAt, status: response.status });
      } catch {
        answers.push({ sentAt, status: 'error' });
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

const CLIENTS = 4;
const failed = (answers: readonly Answer[]) => answers.filter((answer) => answer.status === 'error' || answer.status >= 500);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('start:cluster behind HAProxy, an instance lost under load', () => {
  it('drains one (SIGTERM) without a failed request, and after the check marks a killed one DOWN, no 5xx', { timeout: 150_000 }, async () => {
    const databaseUrl = await freshDatabase('haproxy_failover');
    const [port, webPort] = [await portToBindLater(), await portToBindLater()];
    const cluster = launch(tsxCommand('tools/cluster/main.ts', ['--instances', '3', '--port', String(port), '--web-port', String(webPort)]), {
      env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', NODE_ENV: 'production', SHUTDOWN_DELAY_SECONDS: '4', RATE_LIMIT_REQUESTS: '1000000' },
    });
    const output = () => `${cluster.stdout()}${cluster.stderr()}`;
    try {
      await waitForOutput(cluster, /Ctrl-C stops/, { timeoutMs: 90_000 });
      const pids = [...cluster.stdout().matchAll(/^ {2}instance (\d): pid (\d+),/gm)].map((match) => Number(match[2]));
      expect(pids, output()).toHaveLength(3);
      const { key } = await makeKey(':unused:', 'ann', { DATABASE_URL: databaseUrl });
      // The instances run the built artefact, and trust HAProxy's own source address only (127.0.0.2): a local client
      // that reaches an instance directly cannot name another client in X-Forwarded-For; through HAProxy it is itself.
      expect(cluster.stdout()).toMatch(/instance 1: pid \d+, http:\/\/127\.0\.0\.1:\d+/);
      const direct = /instance 1: pid \d+, (http:\/\/\S+),/.exec(cluster.stdout())?.[1] ?? '';
      const probe = async (base: string, id: string) => {
        const answer = await fetch(`${base}/shared?sort=asc`, {
          headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.9', 'x-request-id': id },
        });
        await answer.arrayBuffer();
        return answer.status;
      };
      expect(await probe(direct, 'forge-direct')).toBe(200);
      expect(await probe(`http://127.0.0.1:${port}`, 'forge-through-haproxy')).toBe(200);
      await sleep(1_500); // the request lines are written within a second
      for (const id of ['forge-direct', 'forge-through-haproxy']) {
        const line = cluster
          .stdout()
          .split('\n')
          .find((candidate) => candidate.includes(`"clientRequestId":"${id}"`));
        expect(line, `${id}'s request line`).toContain('"clientAddress":"127.0.0.1"');
      }
      const traffic = load(`http://127.0.0.1:${port}`, key, CLIENTS);
      await sleep(1500);

      process.kill(pids[0]!, 'SIGTERM');
      await waitForOutput({ ...cluster, stdout: cluster.stderr }, /Server api\/instance1 is DOWN/, { timeoutMs: 10_000 });
      // The drain (4 s) outlasts the check's detection (about 2 s): the instance closes after HAProxy has left it.
      await sleep(5000);
      const drained = traffic.answers.length;
      expect(failed(traffic.answers), 'failed requests while instance 1 drained').toEqual([]);

      process.kill(pids[1]!, 'SIGKILL');
      await waitForOutput({ ...cluster, stdout: cluster.stderr }, /Server api\/instance2 is DOWN/, { timeoutMs: 10_000 });
      const markedDown = Date.now();
      await sleep(3000);
      await traffic.stop();

      const inWindow = failed(traffic.answers.slice(drained).filter((answer) => answer.sentAt < markedDown));
      const after = traffic.answers.filter((answer) => answer.sentAt > markedDown);
      console.log(`${traffic.answers.length} requests; ${inWindow.length} failed between the SIGKILL and HAProxy's DOWN, ${after.length} after it`);
      expect(after.length).toBeGreaterThan(20);
      expect(failed(after), 'failed requests once HAProxy marked instance 2 DOWN').toEqual([]);
      expect(after.every((answer) => answer.status === 200)).toBe(true);
      // What was in flight on the killed instance (one per client at most), and a few that reached it before HAProxy saw it go.
      expect(inWindow.length).toBeLessThanOrEqual(2 * CLIENTS);
    } finally {
      cluster.signal('SIGINT');
      await cluster.exited;
    }
  });
});

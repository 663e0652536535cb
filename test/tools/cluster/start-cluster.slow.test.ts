/**
 * `npm run start:cluster` as an operator runs it, on the run's PostgreSQL: it prints where to get a key but
 * never a key (its output carries the instances' logs), a key made with the keys CLI works through it, the
 * balancer spreads requests over both instances (their quota windows are shared, so the remaining count
 * goes down across them), and Ctrl-C stops every process it started.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/contract/project.js';
import { freshDatabase } from '../../helpers/postgres.js';
import getPort from 'get-port';
import { makeKey } from '../../../tools/process/make-key.js';

describe('npm run start:cluster', () => {
  it('serves one key through a balancer over two instances and stops them all on SIGINT', async () => {
    const databaseUrl = await freshDatabase('start_cluster');
    const [port, webPort] = [await getPort(), await getPort()];
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'tools/cluster/main.ts', '--instances', '2', '--port', String(port), '--web-port', String(webPort)],
      {
        cwd: projectRoot,
        env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('Ctrl-C stops') && Date.now() < deadline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(output).toContain('Ctrl-C stops');
      expect(output).not.toMatch(/tka_[0-9A-Za-z]{38}/);
      expect(output).toContain('npm run keys -- create --user');
      const { key } = await makeKey(':unused:', 'ann', { DATABASE_URL: databaseUrl });
      const instancePorts = [...output.matchAll(/(?:Listening on|Web application on) http:\/\/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1]));
      expect(new Set(instancePorts).size, output).toBe(4);
      expect(output).toContain(`Web application balancer on http://127.0.0.1:${webPort}`);
      const page = await fetch(`http://127.0.0.1:${webPort}/`);
      expect(page.status).toBe(200);
      // The pages' curl shows the API balancer, not an instance.
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
      // Two instances each leased a block of 12 of the 600: neither thinks the whole quota is its own.
      expect(Math.min(...remaining)).toBeLessThan(600 - 12);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    // Nothing answers on the balancers' or the instances' ports any more.
    for (const stopped of [port, webPort, ...instancePortsSeen(output)]) {
      await expect(fetch(`http://127.0.0.1:${stopped}/`, { method: 'POST' })).rejects.toThrow();
    }
  }, 90_000);
});

function instancePortsSeen(output: string): number[] {
  return [...output.matchAll(/(?:Listening on|Web application on) http:\/\/127\.0\.0\.1:(\d+)/g)].map((match) => Number(match[1]));
}

/**
 * A short `npm run soak` (a few seconds) in `npm run test:slow`, both ways it runs:
 * starting its own server, and targeting a running one with --url/--token/--pid.
 * The long run is `npm run soak` (60 s by default); bad usage is test/tools/soak/options.test.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { tsxCommand } from '../../tools/process/commands.js';
import { makeKey } from '../../tools/process/make-key.js';
import { runCommand } from '../../tools/process/run-command.js';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { startServer } from '../../tools/process/server.js';
import type { SoakReport } from '../../tools/soak/soak.js';

const soak = (args: string[]) => runCommand(tsxCommand('tools/soak/main.ts', args), { timeoutMs: 60_000 });

function expectClean(report: SoakReport): void {
  expect(report.requests).toBeGreaterThan(100);
  expect(report.serverErrors).toBe(0);
  expect(report.socketErrorCount).toBe(0);
  expect(report.socketErrors).toEqual({});
  expect(report.contractViolations).toBe(0);
  expect(report.ok).toBe(true);
  // The mix reaches every answer it is built to provoke.
  expect(Object.keys(report.statuses).sort()).toEqual(['200', '400', '401', '404', '405', '413', '415', '422']);
  expect(report.latencyMs.p99).toBeGreaterThan(0);
  // Unknown keys (a fresh well-formed key each request) and slow clients beside it never kept the valid key from being served.
  expect(report.validServedPerSecond.min).toBeGreaterThan(0);
  expect(report.slowClients.serverErrors).toBe(0);
  expect(report.slowClients.notProblems).toBe(0);
  expect(report.rssMiB?.start).toBeGreaterThan(0);
  expect(report.rssMiB?.end).toBeGreaterThan(0);
}

describe('npm run soak, short', () => {
  it('starts its own server with a fresh key, drives it, reports, and stops it cleanly', { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await soak(['--duration', '3', '--connections', '4', '--json']);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as SoakReport & { serverExit: { code: number; stderr: string } };
    expectClean(report);
    expect(report.serverExit).toMatchObject({ code: 0, stderr: '' });
  });

  it('targets a running server with --url, --token and --pid', { timeout: 60_000 }, async () => {
    const database = scratchDatabase('soak-target-');
    // Short timeouts, so the slow clients are cut within the run.
    const server = await startServer({
      databasePath: database.path,
      env: {
        RATE_LIMIT_REQUESTS: '1000000',
        FAILED_AUTH_PER_ADDRESS: '1000000',
        FAILED_AUTH_TOTAL: '1000000',
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '2000',
      },
    });
    try {
      const { key } = await makeKey(database.path, 'demo');
      const { code, stdout, stderr } = await soak([
        ...['--url', server.url, '--token', key, '--pid', String(server.pid)],
        ...['--duration', '5', '--connections', '2', '--slow-clients', '4'],
      ]);
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/requests\s+\d+/);
      expect(stdout).toMatch(/5xx\s+0\n/);
      expect(stdout).toMatch(/socket errors\s+0,/);
      expect(stdout).toMatch(/p99 [\d.]+ ms/);
      expect(stdout).toMatch(/server RSS\s+start [\d.]+ MiB/);
      expect(stdout).toMatch(/valid key\s+served every second: at least [1-9]\d* answers in each of 5 s/);
      // Each slow client met the server's cut: 408 for slow headers, slow bodies and idle connections, 400 for a GET body.
      expect(stdout).toMatch(/slow clients\s+4 clients, \d+ connections; ended by .*400: \d+/);
      expect(stdout).toMatch(/slow clients\s+4 clients, .*408: \d+.*; 5xx 0, not a problem 0/);
      expect(stdout).toMatch(/result\s+ok/);
      expect(server.exitStatus()).toBeUndefined();
    } finally {
      await server.stop();
      database.remove();
    }
  });

  it('exits 1 and counts them when the server answers 5xx or drops connections', { timeout: 60_000 }, async () => {
    // A broken server: 500 for every GET, the connection dropped for every DELETE, 200 otherwise.
    const broken = createServer((request, response) => {
      if (request.method === 'DELETE') {
        request.socket.destroy();
        return;
      }
      response.writeHead(request.method === 'GET' ? 500 : 200, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = broken.address() as AddressInfo;
      const { code, stdout } = await soak(['--url', `http://127.0.0.1:${port}`, '--token', 'tka_x', '--duration', '1', '--connections', '2', '--json']);
      expect(code).toBe(1);
      const report = JSON.parse(stdout) as SoakReport;
      expect(report.ok).toBe(false);
      expect(report.serverErrors).toBeGreaterThan(0);
      expect(report.socketErrorCount).toBeGreaterThan(0);
      expect(report.contractViolations).toBeGreaterThan(0);
    } finally {
      broken.closeAllConnections();
      await new Promise((resolve) => broken.close(resolve));
    }
  });
});

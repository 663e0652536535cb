/**
 * The database goes away under a running instance and comes back: meanwhile every request gets a 503
 * problem with Retry-After, answered promptly (no hang, no 500, no stack), and the instance recovers by
 * itself. This test kills its own PostgreSQL (`pg_ctl stop -m immediate`), not the run's shared one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPostgres, SCRATCH_SETTINGS, startLocalPostgres } from '../../tools/cluster/local-postgres.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { makeKey } from '../../tools/process/make-key.js';
import { launch } from '../../tools/process/launch.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { runCommand } from '../../tools/process/run-command.js';
import { type ServerProcess, startServer, stderrBeyondGreeting } from '../../tools/process/server.js';
import { expectHonoursContract } from '../helpers/contract.js';

let postgres: LocalPostgres;
let server: ServerProcess;
let key: string;
let keyId: string;
let env: Record<string, string>;

beforeAll(async () => {
  // Synchronous commit stays on: an immediate stop is a crash, and the key made just before must survive it.
  postgres = await startLocalPostgres({ prefix: 'outage-pg-', settings: { ...SCRATCH_SETTINGS, synchronous_commit: 'on' } });
  const databaseUrl = await postgres.createDatabase('outage');
  // A one-minute backstop: after the outage, a revocation seen within seconds came by NOTIFY on a listener that reconnected.
  env = { DATABASE_URL: databaseUrl, DATABASE_CONNECT_TIMEOUT_MS: '1000', CACHE_TTL_MS: '60000', NODE_ENV: 'development', LOG_LEVEL: 'info' };
  server = await startServer({ databasePath: ':unused:', env, timeoutMs: 30_000 });
  ({ key, id: keyId } = await makeKey(':unused:', 'ann', env));
});

afterAll(async () => {
  await server?.stop();
  postgres?.stop();
});

async function call(): Promise<{ status: number; headers: Headers; text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/shared?sort=asc`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  // A 503 is what this test provokes; everything else about it (documented status, headers, body) is still checked.
  expectHonoursContract('listSharedItemsByQuery', { status: response.status, headers: response.headers, body: text }, true);
  return { status: response.status, headers: response.headers, text, ms: performance.now() - started };
}

describe('the database going away and coming back', () => {
  it('answers 503 with Retry-After while it is away, promptly, and 200 again once it is back, without a restart', async () => {
    expect((await call()).status).toBe(200);
    postgres.kill();
    const during = [];
    for (let index = 0; index < 10; index++) during.push(await call());
    for (const answer of during) {
      expect(answer.status, answer.text).toBe(503);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(JSON.parse(answer.text)).toMatchObject({ type: 'urn:problem-type:service-unavailable', status: 503 });
      expect(answer.text).not.toMatch(/at .*\.(ts|js):\d+/);
      // Within the connect timeout (1 s here) and some slack for a loaded machine; never a hang.
      expect(answer.ms).toBeLessThan(3_000);
    }
    postgres.restart();
    const deadline = performance.now() + 20_000;
    let status = 0;
    while (performance.now() < deadline) {
      status = (await call()).status;
      if (status === 200) break;
      expect(status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect(server.exitStatus()).toBeUndefined();
    expect(server.stderr()).not.toMatch(/uncaught|unhandled/i);
    expect(server.stdout()).toContain('change listener dropped');
    expect(server.stdout()).toContain('store unavailable; answering 503');
  });

  it('listens for changes again by itself, so a key revoked afterwards fails within seconds, not the one-minute backstop', async () => {
    const listening = () =>
      server
        .stdout()
        .split('\n')
        .filter((line) => line.includes('listening for changes')).length;
    const deadline = performance.now() + 15_000;
    while (listening() < 2 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(listening(), 'the listener connected at start and again after the outage').toBe(2);
    expect((await call()).status).toBe(200);
    const revoked = await runCommand(tsxCommand('src/cli/keys.ts', ['revoke', keyId]), { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    const started = performance.now();
    let status = 0;
    while (performance.now() - started < 3_000) {
      status = (await call()).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(401);
  });
});

describe('an instance started while its database is away', () => {
  it('waits for it, retrying without a stack; stops at once with exit 0 on SIGTERM while waiting; starts and serves once it is back', async () => {
    postgres.kill();
    const instance = () =>
      launch(tsxCommand('src/server/main.ts'), {
        env: { ...env, NODE_ENV: 'production', SHUTDOWN_DELAY_SECONDS: '0', HOST: '127.0.0.1', PORT: '0', WEB_PORT: '0' },
      });
    const waiting = instance();
    const patient = instance();
    try {
      await waitForOutput(waiting, /database unavailable at startup; retrying/, { timeoutMs: 15_000 });
      const stopped = await waiting.stop({ graceMs: 5_000 });
      expect(stopped, waiting.outputTail()).toEqual({ code: 0, signal: null });
      expect(waiting.stderr()).toBe('');

      await waitForOutput(patient, /database unavailable at startup; retrying/, { timeoutMs: 15_000 });
      postgres.restart();
      const [, url = ''] = await waitForOutput(patient, /^Listening on (\S+)$/m, { timeoutMs: 30_000 });
      const response = await fetch(`${url}/shared?sort=asc`, { headers: { authorization: `Bearer ${key}` } });
      // The key was revoked by the test above: an answer from the contract, from the database that came back.
      expect(response.status).toBe(401);
      expect(stderrBeyondGreeting(patient.stderr())).toBe('');
      expect(await patient.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await Promise.all([waiting.stop({ signal: 'SIGKILL' }), patient.stop({ signal: 'SIGKILL' })]);
    }
  });
});

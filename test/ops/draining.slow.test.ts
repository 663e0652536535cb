/**
 * Draining on SIGTERM, on a real process: `/readyz` turns 503 at once while the public listener goes on
 * serving for SHUTDOWN_DELAY_SECONDS, so a load balancer sees the instance leave before its port closes;
 * then the listeners close and the process exits 0. Slow: it starts the server and waits out the delay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../../tools/process/server.js';

let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.stop({ signal: 'SIGKILL' });
});

const status = async (url: string) => {
  const response = await fetch(url, { method: url.endsWith('z') ? 'GET' : 'POST', body: url.endsWith('z') ? null : '{}' });
  await response.arrayBuffer();
  return response.status;
};

describe('draining', () => {
  it('answers /readyz 503 on SIGTERM while the public API still serves, closes after the delay and exits 0', { timeout: 60_000 }, async () => {
    server = await startServer({ databasePath: ':memory:', env: { OPS_PORT: '0', SHUTDOWN_DELAY_SECONDS: '3' } });
    const ops = /^Probes and metrics on (\S+) /m.exec(server.stderr())?.[1];
    expect(ops, server.outputTail()).toBeDefined();
    expect(await status(`${ops}/livez`)).toBe(200);
    expect(await status(`${ops}/readyz`)).toBe(200);
    expect(await status(`${server.url}/`)).toBe(401);

    const signalled = Date.now();
    server.signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const readyz = await fetch(`${ops}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toMatchObject({ status: 'not ready', checks: { draining: { ready: false } } });
    expect(await status(`${ops}/livez`)).toBe(200);
    // The balancer has not noticed yet: what it still sends is served, not refused.
    for (let index = 0; index < 5; index++) expect(await status(`${server.url}/`)).toBe(401);
    expect(server.exitStatus()).toBeUndefined();

    const exit = await server.exited;
    expect(exit.code, server.outputTail()).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3_000);
    await expect(fetch(`${server.url}/`, { method: 'POST' })).rejects.toThrow();
    expect(server.stdout()).toMatch(/"delaySeconds":3,"msg":"draining: \/readyz answers 503 now/);
  });
});

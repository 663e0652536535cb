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
  const post = url.endsWith('/');
  const response = await fetch(url, { method: post ? 'POST' : 'GET', body: post ? '{}' : null });
  await response.arrayBuffer();
  return response.status;
};

describe('draining', () => {
  it('serves probes and metrics on the ops listener only; on SIGTERM answers /readyz 503 while the public API still serves, closes after the delay and exits 0', {
    timeout: 60_000,
  }, async () => {
    server = await startServer({ databasePath: ':memory:', env: { OPS_PORT: '0', SHUTDOWN_DELAY_SECONDS: '3' } });
    const ops = server.opsUrl;
    expect(ops, server.outputTail()).toBeDefined();
    expect(await status(`${ops}/livez`)).toBe(200);
    expect(await status(`${ops}/readyz`)).toBe(200);
    const before = await fetch(`${server.url}/`, { method: 'POST', body: '{}' });
    await before.arrayBuffer();
    expect(before.headers.get('connection')).toBe('keep-alive');
    // Only on the ops listener: the public and the web listeners do not serve the probes or the metrics.
    for (const base of [server.url, server.webUrl])
      for (const path of ['/livez', '/readyz', '/metrics']) expect(await status(`${base.replace(/\/$/, '')}${path}`), `${base}${path}`).not.toBe(200);
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    expect(metrics).toMatch(/^http_server_request_duration_seconds_count\{api="main",operation="listOwnItems",http_response_status_code="401"\} \d+$/m);
    expect(metrics).toMatch(/^http_server_authentication_failures_total\{api="main",reason="missing-credential"\} \d+$/m);

    const signalled = Date.now();
    server.signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const readyz = await fetch(`${ops}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toMatchObject({ status: 'not ready', checks: { draining: { ready: false } } });
    expect(await status(`${ops}/livez`)).toBe(200);
    // The balancer has not noticed yet: what it still sends is served, not refused, and each answer says
    // `Connection: close`, so a balancer's kept-alive connection is not reused for a request the instance would
    // be closing on (nginx answered 502 for those).
    for (let index = 0; index < 5; index++) {
      const answer = await fetch(`${server.url}/`, { method: 'POST', body: '{}' });
      await answer.arrayBuffer();
      expect(answer.status).toBe(401);
      expect(answer.headers.get('connection')).toBe('close');
    }
    expect(server.exitStatus()).toBeUndefined();

    const exit = await server.exited;
    expect(exit.code, server.outputTail()).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(3_000);
    await expect(fetch(`${server.url}/`, { method: 'POST' })).rejects.toThrow();
    expect(server.stdout()).toMatch(/"delaySeconds":3,"msg":"draining: \/readyz answers 503 now/);
  });
});

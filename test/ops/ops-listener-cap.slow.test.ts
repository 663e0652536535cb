/**
 * The ops listener bounded (issue 32 point 5): 1,000 idle connections to the ops port, in a process whose
 * open-file limit is 400, leave the public API answering and the probes reachable from another address.
 * Unbounded, those connections took every descriptor and the public listener could accept nothing. Slow: a real
 * process under `prlimit`.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsxCommand } from '../../tools/process/commands.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';
import { waitForOutput } from '../../tools/process/ready.js';

let server: LaunchedProcess;
let api = '';
let ops = new URL('http://127.0.0.1');
const sockets: Socket[] = [];

beforeAll(async () => {
  server = launch(['prlimit', '--nofile=400', ...tsxCommand('src/server/main.ts')], {
    env: { NODE_ENV: 'test', DATABASE_PATH: ':memory:', HOST: '127.0.0.1', PORT: '0', WEB_PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'warn' },
  });
  const [, url = '', , opsUrl = ''] = await waitForOutput(server, /^Listening on (\S+)\nWeb application on (\S+)\nProbes and metrics on (\S+) /m, {
    timeoutMs: 30_000,
  });
  api = url;
  ops = new URL(opsUrl);
}, 40_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await server?.stop();
});

/** Opens a connection and keeps it idle; resolves when it is open or was refused (closed by the server). */
function idleConnection(): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: ops.hostname, port: Number(ops.port) }, () => resolve());
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    sockets.push(socket);
  });
}

describe('the ops listener', () => {
  it('holds a bounded number of connections: 1,000 idle ones leave the public API answering', { timeout: 60_000 }, async () => {
    for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 100 }, idleConnection));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stillOpen = sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
    expect(stillOpen).toBeLessThanOrEqual(16);

    const answer = await fetch(`${api}/shared`, { headers: { authorization: 'Bearer tka_made_up' } });
    expect(answer.status).toBe(401);
    // A probe from another address (a balancer, the kubelet) still gets through: the cap is per address too.
    const live = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: ops.hostname, port: Number(ops.port), localAddress: '127.0.0.2' }, () =>
        socket.end('GET /livez HTTP/1.1\r\nHost: ops\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(live).toMatch(/^HTTP\/1\.1 200 /);
    expect(server.stderr()).not.toMatch(/EMFILE/);
  });
});

/**
 * The log stream of a real process on a quiet server: a request's line reaches stdout within
 * about a second without any shutdown (so SIGKILL loses at most that second), and SIGHUP (a
 * terminal hanging up, a supervisor asking to reopen logs) flushes the lines and keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../tools/process/scratch-database.js';
import { startServer, type ServerProcess } from '../../tools/process/server.js';

const database = scratchDatabase('logs-');
let server: ServerProcess;
beforeAll(async () => {
  server = await startServer({ databasePath: database.path, env: { LOG_LEVEL: 'info' } });
});
afterAll(async () => {
  await server?.stop({ signal: 'SIGKILL' });
  database.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One refused request (no key), and the request id the server gave it. */
async function refusedRequest(): Promise<string> {
  const response = await fetch(`${server.url}/shared`);
  await response.arrayBuffer();
  expect(response.status).toBe(401);
  return response.headers.get('x-request-id')!;
}

const loggedIds = () =>
  server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { requestId?: string }).requestId);

describe('logs on a quiet server', () => {
  it('writes JSON lines only on stdout; the greeting is on stderr', async () => {
    await refusedRequest();
    await sleep(1_200);
    const lines = server.stdout().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(server.stderr()).toMatch(/^Listening on http:\/\/127\.0\.0\.1:\d+$/m);
  });

  it("writes a refused request's line within about a second, with nothing else happening", async () => {
    const requestId = await refusedRequest();
    await sleep(1_500);
    expect(loggedIds()).toContain(requestId);
  });

  it('on SIGHUP writes what it holds at once, says so, and keeps serving', async () => {
    const requestId = await refusedRequest();
    server.signal('SIGHUP');
    // Well inside the timer's second: the line is there because of the signal.
    await sleep(300);
    expect(server.exitStatus(), server.outputTail()).toBeUndefined();
    expect(loggedIds()).toContain(requestId);
    expect(server.stdout()).toMatch(/"signal":"SIGHUP".*"msg":"SIGHUP: logs flushed; still serving \(SIGTERM or SIGINT stops the server\)"/);
    await refusedRequest();
  });

  it('loses at most the last second of lines to SIGKILL', async () => {
    const requestId = await refusedRequest();
    await sleep(1_500);
    await server.stop({ signal: 'SIGKILL' });
    expect(loggedIds()).toContain(requestId);
  });
});

import { expect } from 'vitest';
import type { LaunchedProcess } from '../../tools/process/launch.js';
import { isRunning } from '../../tools/process/process-group.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends SIGTERM to npm's own pid, never to its group, as a supervisor that started only npm does,
 * and checks that the server it runs (answering at `url`) ran its graceful shutdown (its
 * `stopped` line) and that npm and everything under it ended within a few seconds.
 */
export async function expectSignalReachesServer(npm: LaunchedProcess, url: string): Promise<void> {
  // The server answers (a 401 is enough): the signal arrives at a running server, not one still starting.
  const before = await fetch(`${url}/shared`);
  await before.arrayBuffer();
  expect(before.status).toBe(401);

  npm.signal('SIGTERM');
  const deadline = Date.now() + 15_000;
  while (isRunning(npm.pid, { group: true }) && Date.now() < deadline) await sleep(50);

  const left = isRunning(npm.pid, { group: true });
  const log = npm.stdout();
  expect(left, `still running 15 s after SIGTERM to npm (pid ${npm.pid}); output:\n${npm.outputTail()}`).toBe(false);
  expect(log).toContain('"msg":"shutting down: no new connections, finishing in-flight requests"');
  expect(log).toContain('"msg":"stopped"');
  const exit = await npm.exited;
  // npm passes on the server's exit: 0 after a graceful shutdown.
  expect(exit, npm.outputTail()).toEqual({ code: 0, signal: null });
}

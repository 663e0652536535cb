/** `npm run mock` with a real Prism behind it: two Prisms at a time cost more than `npm test`'s minute allows. */

import { describe, expect, it } from 'vitest';
import { portToBindLater } from '../../src/cli/port-to-bind-later.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { launch } from '../../tools/process/launch.js';
import { isRunning } from '../../tools/process/process-group.js';
import { waitForOutput } from '../../tools/process/ready.js';
import { requestContract } from '../helpers/contract.js';

/** `npm run mock -- <args>` without npm, leading its own process group (Prism joins it). */
const startLauncher = (args: string[]) => launch(tsxCommand('src/mock/main.ts', args));

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((done) => setTimeout(done, 100));
  }
}

// Each starts its own Prism and waits on it, so they run side by side.
describe('npm run mock', { concurrent: true }, () => {
  it('says where it listens once Prism answers, stays quiet for good requests, and stops Prism on SIGINT', async () => {
    const port = await portToBindLater();
    const launcher = startLauncher(['--port', String(port)]);
    try {
      await waitForOutput(launcher, new RegExp(`Prism mock of the contract at http://127\\.0\\.0\\.1:${port}`), { timeoutMs: 60_000 });
      const response = await fetch(`http://127.0.0.1:${port}/shared`, { headers: { Authorization: 'Bearer any' } });
      expect(response.status).toBe(200);
      // The spec's own quota (x-limits), as the served example header says it: an edit of the limit is followed here.
      expect(response.headers.get('ratelimit-limit')).toBe(String(requestContract.limits.rateLimit.requests));
      await new Promise((done) => setTimeout(done, 300));
      expect(launcher.stdout() + launcher.stderr()).not.toMatch(/Request received|Responding with/);
      launcher.signal('SIGINT');
      expect((await launcher.exited).code).toBe(0);
      await until(() => !isRunning(launcher.pid, { group: true }), 10_000);
    } finally {
      await launcher.stop({ signal: 'SIGKILL' });
    }
  });

  it('logs every request with --verbose', async () => {
    const port = await portToBindLater();
    const launcher = startLauncher(['--port', String(port), '--verbose']);
    try {
      await waitForOutput(launcher, /Prism mock of the contract/, { timeoutMs: 60_000 });
      await (await fetch(`http://127.0.0.1:${port}/shared`, { headers: { Authorization: 'Bearer any' } })).text();
      await until(() => /Responding with "200"/.test(launcher.stdout() + launcher.stderr()), 10_000);
    } finally {
      await launcher.stop({ signal: 'SIGKILL' });
    }
  });
});

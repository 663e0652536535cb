import { describe, expect, it } from 'vitest';
import { prismCommand } from '../../src/mock/prism.js';
import { tsxCommand } from '../../src/process/commands.js';
import { freePort } from '../../src/process/free-port.js';
import { launch } from '../../src/process/launch.js';
import { isRunning } from '../../src/process/process-group.js';
import { waitForOutput } from '../../src/process/ready.js';

/** `npm run mock -- <args>` without npm, leading its own process group (Prism joins it). */
const startLauncher = (args: string[]) => launch(tsxCommand('src/mock/main.ts', args));

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe('prismCommand', () => {
  it.each([
    { given: { verbose: false, dynamic: false }, want: ['--verboseLevel', 'warn', '--multiprocess=false'], not: '--dynamic' },
    {
      given: { verbose: true, dynamic: true, seed: 's1' },
      want: ['--verboseLevel', 'info', '--multiprocess=false', '--dynamic', '--seed', 's1'],
      not: undefined,
    },
  ])('passes one log level and the mode: $given', ({ given, want, not }) => {
    const argv = prismCommand({ host: '127.0.0.1', port: 4010, ...given });
    expect(argv[0]).toBe(process.execPath);
    expect(argv.slice(2, 8)).toEqual(['mock', 'openapi/openapi.yaml', '--host', '127.0.0.1', '--port', '4010']);
    expect(argv.slice(8)).toEqual(want);
    if (not) expect(argv).not.toContain(not);
  });
});

// Each starts its own Prism and waits on it, so they run side by side.
describe('npm run mock', { concurrent: true }, () => {
  it('says where it listens once Prism answers, stays quiet for good requests, and stops Prism on SIGINT', async () => {
    const port = await freePort();
    const launcher = startLauncher(['--port', String(port)]);
    try {
      await waitForOutput(launcher, new RegExp(`Prism mock of the contract at http://127\\.0\\.0\\.1:${port}`), { timeoutMs: 60_000 });
      const response = await fetch(`http://127.0.0.1:${port}/shared`, { headers: { Authorization: 'Bearer any' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('600');
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
    const port = await freePort();
    const launcher = startLauncher(['--port', String(port), '--verbose']);
    try {
      await waitForOutput(launcher, /Prism mock of the contract/, { timeoutMs: 60_000 });
      await (await fetch(`http://127.0.0.1:${port}/shared`, { headers: { Authorization: 'Bearer any' } })).text();
      await until(() => /Responding with "200"/.test(launcher.stdout() + launcher.stderr()), 10_000);
    } finally {
      await launcher.stop({ signal: 'SIGKILL' });
    }
  });

  it('exits 2 on bad usage', async () => {
    const launcher = startLauncher(['--port', 'not-a-port']);
    try {
      expect((await launcher.exited).code).toBe(2);
      expect(launcher.stderr()).toContain('must be a port number');
    } finally {
      await launcher.stop({ signal: 'SIGKILL' });
    }
  });
});

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/contract/project.js';
import { prismCommand } from '../../src/mock/prism.js';
import { isRunning } from '../helpers/mock-process.js';
import { freePort } from '../helpers/server-process.js';

/** Runs `npm run mock -- <args>` (without npm) in its own process group. */
function startLauncher(args: string[]) {
  const child = spawn(resolve(projectRoot, 'node_modules', '.bin', 'tsx'), ['src/mock/main.ts', ...args], { cwd: projectRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  return { child, exited, output: () => output, killGroup };
}

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
    { given: { verbose: true, dynamic: true, seed: 's1' }, want: ['--verboseLevel', 'info', '--multiprocess=false', '--dynamic', '--seed', 's1'], not: undefined },
  ])('passes one log level and the mode: $given', ({ given, want, not }) => {
    const { args } = prismCommand({ host: '127.0.0.1', port: 4010, ...given });
    expect(args.slice(1, 7)).toEqual(['mock', 'openapi/openapi.yaml', '--host', '127.0.0.1', '--port', '4010']);
    expect(args.slice(7)).toEqual(want);
    if (not) expect(args).not.toContain(not);
  });
});

describe('npm run mock', () => {
  it('says where it listens once Prism answers, stays quiet for good requests, and stops Prism on SIGINT', async () => {
    const port = await freePort();
    const launcher = startLauncher(['--port', String(port)]);
    try {
      await until(() => launcher.output().includes(`Prism mock of the contract at http://127.0.0.1:${port}`), 60_000);
      const response = await fetch(`http://127.0.0.1:${port}/shared`, { headers: { Authorization: 'Bearer any' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('600');
      await new Promise((done) => setTimeout(done, 300));
      expect(launcher.output()).not.toMatch(/Request received|Responding with/);
      process.kill(launcher.child.pid!, 'SIGINT');
      expect(await launcher.exited).toBe(0);
      await until(() => !isRunning(-launcher.child.pid!), 10_000);
    } finally {
      launcher.killGroup();
    }
  });

  it('logs every request with --verbose', async () => {
    const port = await freePort();
    const launcher = startLauncher(['--port', String(port), '--verbose']);
    try {
      await until(() => launcher.output().includes('Prism mock of the contract'), 60_000);
      await (await fetch(`http://127.0.0.1:${port}/shared`, { headers: { Authorization: 'Bearer any' } })).text();
      await until(() => /Responding with "200"/.test(launcher.output()), 10_000);
    } finally {
      launcher.killGroup();
    }
  });

  it('exits 2 on bad usage', async () => {
    const launcher = startLauncher(['--port', 'not-a-port']);
    try {
      expect(await launcher.exited).toBe(2);
      expect(launcher.output()).toContain('must be a port number');
    } finally {
      launcher.killGroup();
    }
  });
});

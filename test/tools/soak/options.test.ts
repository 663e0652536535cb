import { describe, expect, it } from 'vitest';
import { exitCodeFor, UsageError } from '../../../src/cli/exit.js';
import { tsxCommand } from '../../../tools/process/commands.js';
import { runCommand } from '../../../tools/process/run-command.js';
import { parseSoakArgs, type SoakOptions } from '../../../tools/soak/options.js';

/** What parsing `args` leads to: the options, or the exit code and what was written to stderr. */
function parse(args: string[]): { options?: SoakOptions; code?: number; stderr: string } {
  let stderr = '';
  const writeErr = (text: string) => {
    stderr += text;
  };
  try {
    return { options: parseSoakArgs(args, writeErr), stderr };
  } catch (error) {
    return { code: exitCodeFor('soak', error, writeErr), stderr };
  }
}

describe('npm run soak arguments', () => {
  it('defaults to starting its own server for 60 s with 16 connections and 8 slow clients', () => {
    expect(parse([])).toEqual({ options: { duration: 60, connections: 16, slowClients: 8, user: 'demo' }, stderr: '' });
    expect(parse(['--slow-clients', '0']).options).toMatchObject({ slowClients: 0 });
  });

  it('targets a running server with --url, --token and --pid', () => {
    expect(parse(['--url', 'http://127.0.0.1:3000', '--token', 'tka_x', '--pid', '42', '--duration', '5', '--json']).options).toEqual({
      url: 'http://127.0.0.1:3000',
      token: 'tka_x',
      pid: 42,
      duration: 5,
      connections: 16,
      slowClients: 8,
      user: 'demo',
      json: true,
    });
  });

  it('runs the combined attack with --attack, on its own server or at --url and --web-url', () => {
    expect(parse(['--attack', '--duration', '12']).options).toEqual({ attack: true, duration: 12, connections: 16, slowClients: 8, user: 'demo' });
    expect(parse(['--attack', '--url', 'http://127.0.0.1:3000', '--web-url', 'http://127.0.0.1:3001']).options).toMatchObject({
      attack: true,
      url: 'http://127.0.0.1:3000',
      webUrl: 'http://127.0.0.1:3001',
    });
  });

  it("sends the /64 spread to a running server's trusted hop with --proxy-url, --proxy-web-url and --proxy-address", () => {
    const target = ['--attack', '--url', 'http://127.0.0.1:3000', '--web-url', 'http://127.0.0.1:3001'];
    const hop = ['--proxy-url', 'http://127.0.0.1:41001', '--proxy-web-url', 'http://127.0.0.1:41002', '--proxy-address', '127.0.0.2'];
    expect(parse([...target, ...hop]).options).toEqual({
      attack: true,
      url: 'http://127.0.0.1:3000',
      webUrl: 'http://127.0.0.1:3001',
      proxyUrl: 'http://127.0.0.1:41001',
      proxyWebUrl: 'http://127.0.0.1:41002',
      proxyAddress: '127.0.0.2',
      duration: 60,
      connections: 16,
      slowClients: 8,
      user: 'demo',
    });
    expect(parse([...target, '--proxy-url', 'http://[::1]:1', '--proxy-web-url', 'http://[::1]:2', '--proxy-address', '::1']).options).toMatchObject({
      proxyAddress: '::1',
    });
  });

  const spreadTarget = ['--url', 'http://127.0.0.1:1', '--web-url', 'http://127.0.0.1:2'];
  const spreadHop = ['--proxy-url', 'http://127.0.0.1:3', '--proxy-web-url', 'http://127.0.0.1:4', '--proxy-address', '127.0.0.2'];

  it.each([
    { given: ['--attack', ...spreadTarget, '--proxy-url', 'http://127.0.0.1:3'], want: '--proxy-url, --proxy-web-url and --proxy-address go together' },
    { given: ['--attack', ...spreadTarget, '--proxy-address', '127.0.0.2'], want: '--proxy-url, --proxy-web-url and --proxy-address go together' },
    { given: ['--attack', ...spreadHop], want: '--proxy-url, --proxy-web-url and --proxy-address only apply with --url' },
    {
      given: ['--url', 'http://127.0.0.1:1', '--token', 'tka_x', ...spreadHop],
      want: '--proxy-url, --proxy-web-url and --proxy-address only apply with --attack',
    },
    { given: ['--attack', ...spreadTarget, '--proxy-address', 'localhost'], want: '--proxy-address must be an IP address of this machine' },
  ])('is bad usage (exit 2) for the /64 spread: $given', ({ given, want }) => {
    const result = parse(given);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(want);
  });

  it.each([
    { given: ['--attack', '--url', 'http://127.0.0.1:1'], want: 'with --attack, --url and --web-url go together' },
    { given: ['--attack', '--web-url', 'http://127.0.0.1:1'], want: 'with --attack, --url and --web-url go together' },
    { given: ['--attack', '--token', 'tka_x'], want: '--token does not apply with --attack' },
    { given: ['--attack', '--pid', '1'], want: '--pid does not apply with --attack' },
    { given: ['--web-url', 'http://127.0.0.1:1'], want: '--web-url only applies with --attack' },
    { given: ['--url', 'http://127.0.0.1:1'], want: '--url and --token go together' },
    { given: ['--token', 'tka_x'], want: '--url and --token go together' },
    { given: ['--pid', '1'], want: '--pid only applies with --url' },
    { given: ['--duration', '0'], want: '--duration must be a whole number of at least 1' },
    { given: ['--connections', 'many'], want: '--connections must be a whole number of at least 1' },
    { given: ['--slow-clients', '-1'], want: '--slow-clients must be a whole number, 0 or more' },
    { given: ['--token', '--json', '--url', 'http://127.0.0.1:1'], want: "'--token <key>' argument '--json' is invalid" },
    { given: ['--bogus'], want: "unknown option '--bogus'" },
  ])('is bad usage (exit 2): $given', ({ given, want }) => {
    const result = parse(given);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(want);
  });

  it('throws a UsageError for options that do not go together', () => {
    expect(() => parseSoakArgs(['--pid', '1'])).toThrow(UsageError);
  });

  it('exits 2 with the message as a real process', async () => {
    const { code, stderr } = await runCommand(tsxCommand('tools/soak/main.ts', ['--token', 'tka_x']));
    expect(code).toBe(2);
    expect(stderr).toBe('soak: --url and --token go together: both to target a running server, neither to start one\n');
  });
});

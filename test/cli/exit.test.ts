import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandFailed, exitCodeFor, runCli, UsageError } from '../../src/cli/exit.js';

/** Parses `args` with a small commander program set up as the project's CLIs are, and returns what it threw. */
function commanderError(args: string[]): unknown {
  const program = new Command('demo')
    .option('--port <n>')
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} });
  try {
    program.parse(args, { from: 'user' });
  } catch (error) {
    return error;
  }
  throw new Error('parsed without an error');
}

describe('exitCodeFor', () => {
  it.each([
    { given: 'commander --help', error: () => commanderError(['--help']), want: { code: 0, written: '' } },
    { given: 'commander: an unknown option', error: () => commanderError(['--bogus']), want: { code: 2, written: '' } },
    { given: 'a UsageError', error: () => new UsageError('--user must be set'), want: { code: 2, written: 'demo: --user must be set\n' } },
    { given: 'a CommandFailed', error: () => new CommandFailed('no user named "nobody"'), want: { code: 1, written: 'demo: no user named "nobody"\n' } },
  ])('$given → $want.code', ({ error, want }) => {
    let written = '';
    expect(
      exitCodeFor('demo', error(), (text) => {
        written += text;
      }),
    ).toBe(want.code);
    expect(written).toBe(want.written);
  });

  it('gives 1 for anything unexpected, with its stack', () => {
    let written = '';
    expect(
      exitCodeFor('demo', new TypeError('boom'), (text) => {
        written += text;
      }),
    ).toBe(1);
    expect(written).toMatch(/^demo: TypeError: boom\n\s+at /);
  });
});

describe('runCli', () => {
  afterEach(() => {
    process.exitCode = undefined;
  });

  it('sets the exit code main returns, 0 when it returns nothing', async () => {
    await runCli('demo', () => 1);
    expect(process.exitCode).toBe(1);
    await runCli('demo', async () => undefined);
    expect(process.exitCode).toBe(0);
  });

  it('sets the exit code for what main throws', async () => {
    await runCli('demo', () => {
      throw commanderError(['--bogus']);
    });
    expect(process.exitCode).toBe(2);
  });
});

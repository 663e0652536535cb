import { describe, expect, it } from 'vitest';
import { prismCommand } from '../../src/mock/prism.js';
import { tsxCommand } from '../../tools/process/commands.js';
import { launch } from '../../tools/process/launch.js';

/** `npm run mock -- <args>` without npm, leading its own process group (Prism joins it). */
const startLauncher = (args: string[]) => launch(tsxCommand('src/mock/main.ts', args));

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

// The launcher with a running Prism (quiet by default, --verbose, SIGINT stops Prism) is in main.slow.test.ts.
describe('npm run mock', () => {
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

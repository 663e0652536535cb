import { MOCK_DEFAULTS, type MockOptions } from '../../src/mock/prism.js';
import { tsxCommand } from './commands.js';
import { type LaunchedProcess, launch } from './launch.js';
import { waitForOutput } from './ready.js';

/** The mock (`npm run mock`: Prism and the edge in front of it) running as its own process group. */
export interface MockProcess extends LaunchedProcess {
  /** e.g. `http://127.0.0.1:41235` */
  readonly url: string;
}

/** `npm run mock`'s arguments for these options. */
export function mockArguments(options: MockOptions): string[] {
  const args = ['--host', options.host, '--port', String(options.port)];
  if (options.dynamic) args.push('--dynamic');
  if (options.stateful) args.push('--stateful');
  if (options.seed !== undefined) args.push('--seed', options.seed);
  if (options.verbose) args.push('--verbose');
  if (options.api !== undefined) args.push('--api', options.api);
  if (options.spec !== undefined) args.push('--spec', options.spec);
  return args;
}

/**
 * Starts the mock as `npm run mock` does (`src/mock/main.ts`: Prism behind the edge that words
 * its errors as the contract does) on a port the system picks (`--port 0`), and resolves once it
 * says where it serves, which it does once Prism answers (Prism takes a few seconds to read the spec).
 * The port is the one it bound, never one picked free here and bound seconds later: another process
 * started meanwhile (a second mock's Prism, a server on port 0) could take that one first (seen in
 * CI as EADDRINUSE). If it does not start, it is stopped and the error carries its output.
 */
export async function startMock(options: Partial<Omit<MockOptions, 'port'>> & { timeoutMs?: number } = {}): Promise<MockProcess> {
  const { timeoutMs = 60_000, ...mockOptions } = options;
  const settings: MockOptions = { ...MOCK_DEFAULTS, ...mockOptions, port: 0 };
  const mock = launch(tsxCommand('src/mock/main.ts', mockArguments(settings)));
  try {
    const [, url = ''] = await waitForOutput(mock, /^Prism mock of the contract at (\S+) /m, { timeoutMs });
    return { ...mock, url };
  } catch (error) {
    await mock.stop({ signal: 'SIGKILL' });
    throw error;
  }
}

import { MOCK_DEFAULTS, prismReadinessProbe, type MockOptions } from '../../src/mock/prism.js';
import getPort from 'get-port';
import { tsxCommand } from './commands.js';
import { launch, type LaunchedProcess } from './launch.js';
import { waitForHttp } from './ready.js';

/** The mock (`npm run mock`: Prism and the edge in front of it) running as its own process group. */
export interface MockProcess extends LaunchedProcess {
  /** e.g. `http://127.0.0.1:41235` */
  readonly url: string;
}

/** `npm run mock`'s arguments for these options. */
export function mockArguments(options: MockOptions): string[] {
  const args = ['--host', options.host, '--port', String(options.port)];
  if (options.dynamic) args.push('--dynamic');
  if (options.seed !== undefined) args.push('--seed', options.seed);
  if (options.verbose) args.push('--verbose');
  if (options.api !== undefined) args.push('--api', options.api);
  if (options.spec !== undefined) args.push('--spec', options.spec);
  return args;
}

/**
 * Starts the mock as `npm run mock` does (`src/mock/main.ts`: Prism behind the edge that words
 * its errors as the contract does) on a free loopback port, and resolves once it answers (Prism
 * takes a few seconds to read the spec). If it does not start, it is stopped and the error
 * carries its output.
 */
export async function startMock(options: Partial<Omit<MockOptions, 'port'>> & { timeoutMs?: number } = {}): Promise<MockProcess> {
  const { timeoutMs = 60_000, ...mockOptions } = options;
  const settings: MockOptions = { ...MOCK_DEFAULTS, ...mockOptions, port: await getPort({ host: mockOptions.host ?? MOCK_DEFAULTS.host }) };
  const mock = launch(tsxCommand('src/mock/main.ts', mockArguments(settings)));
  const url = `http://${settings.host}:${settings.port}`;
  try {
    await waitForHttp(mock, prismReadinessProbe(url, settings.api), { timeoutMs, intervalMs: 100 });
    return { ...mock, url };
  } catch (error) {
    await mock.stop({ signal: 'SIGKILL' });
    throw error;
  }
}

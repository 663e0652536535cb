import { MOCK_DEFAULTS, type MockOptions, prismCommand, prismReadinessProbe } from '../mock/prism.js';
import { freePort } from './free-port.js';
import { type LaunchedProcess, launch } from './launch.js';
import { waitForHttp } from './ready.js';

/** The Prism mock running as its own process group. */
export interface MockProcess extends LaunchedProcess {
  /** e.g. `http://127.0.0.1:41235` */
  readonly url: string;
}

/**
 * Starts Prism as `npm run mock` does (the same command line, `prismCommand`) on a free loopback
 * port, and resolves once it answers (Prism takes a few seconds to read the spec). If it does
 * not start, it is stopped and the error carries its output.
 */
export async function startMock(options: Partial<Omit<MockOptions, 'port'>> & { timeoutMs?: number } = {}): Promise<MockProcess> {
  const { timeoutMs = 60_000, ...mockOptions } = options;
  const settings: MockOptions = { ...MOCK_DEFAULTS, ...mockOptions, port: await freePort(mockOptions.host ?? MOCK_DEFAULTS.host) };
  const prism = launch(prismCommand(settings));
  const url = `http://${settings.host}:${settings.port}`;
  try {
    await waitForHttp(prism, prismReadinessProbe(url, settings.api), { timeoutMs, intervalMs: 100 });
    return { ...prism, url };
  } catch (error) {
    await prism.stop({ signal: 'SIGKILL' });
    throw error;
  }
}
